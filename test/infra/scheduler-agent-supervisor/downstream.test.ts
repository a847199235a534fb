import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { loadPlatformConfig } from '../../../lib/platform/config';
import { addSchedulerAgentSupervisor } from '../../../lib/scheduler-agent-supervisor/deployment';
import {
  DOWNSTREAM_SERVICES,
  type Downstream,
  type FakeDownstreamFactory,
  resolveDownstream,
} from '../../../lib/scheduler-agent-supervisor/downstream';
import {
  DEMO_CONTEXT,
  ENDPOINTS_CONTEXT,
  IAM_ENDPOINTS_CONTEXT,
  synthesizeStack,
  testApp,
} from '../support/synth';

const onAws = loadPlatformConfig('default');
const emulated = loadPlatformConfig('local');
const resolve = (values: Record<string, unknown>, platform = onAws): Downstream =>
  resolveDownstream(platform, (key) => values[key]);
const NEITHER =
  "Downstream: profile 'default' deploys no fake services and no endpoint is set. Set inventoryEndpoint, paymentEndpoint, shippingEndpoint (CDK context, e.g. -c inventoryEndpoint=https://…), or deploy the fake services for a demo with -c demo=true";

describe('downstream services of the agents', () => {
  it('one endpoint per service the steps call', () => {
    expect([...DOWNSTREAM_SERVICES]).toEqual(['inventory', 'payment', 'shipping']);
  });

  it('the local profile runs the fake services unless endpoints are given', () => {
    expect(resolve({}, emulated)).toEqual({ kind: 'fakes' });
  });

  it('the default profile runs the fake services only when asked (demo)', () => {
    expect(resolve({ demo: 'true' })).toEqual({ kind: 'fakes' });
    expect(resolve({ demo: true })).toEqual({ kind: 'fakes' });
  });

  it('takes one endpoint per service, unsigned by default, without a trailing slash', () => {
    expect(resolve({ ...ENDPOINTS_CONTEXT, shippingEndpoint: 'https://shipping.example.com/' })).toEqual({
      kind: 'endpoints',
      endpoints: {
        inventory: { url: 'https://inventory.example.com', auth: 'none' },
        payment: { url: 'https://payments.example.com/v2', auth: 'none' },
        shipping: { url: 'https://shipping.example.com', auth: 'none' },
      },
    });
  });

  it('takes a Lambda function URL with IAM auth and the function behind it', () => {
    const resolved = resolve(IAM_ENDPOINTS_CONTEXT);
    expect(resolved.kind === 'endpoints' && resolved.endpoints.inventory).toEqual({
      url: IAM_ENDPOINTS_CONTEXT.inventoryEndpoint,
      auth: 'iam',
      functionArn: IAM_ENDPOINTS_CONTEXT.inventoryFunctionArn,
    });
  });

  describe('fails at synth, naming the settings', () => {
    it('fails when the default profile has neither the fake services nor endpoints', () => {
      expect(() => resolve({})).toThrow(NEITHER);
      expect(() => resolve({ demo: 'false' })).toThrow(NEITHER);
    });

    it('fails when only some services have an endpoint, naming the missing ones', () => {
      expect(() => resolve({ inventoryEndpoint: 'https://inventory.example.com' })).toThrow(
        'Downstream: missing paymentEndpoint, shippingEndpoint (every service needs an endpoint once one is set; inventoryEndpoint is set)',
      );
    });

    it('fails when the demo and endpoints are both asked for', () => {
      expect(() => resolve({ ...ENDPOINTS_CONTEXT, demo: 'true' })).toThrow(
        'Downstream: demo=true deploys the fake services, so it cannot be combined with inventoryEndpoint, paymentEndpoint, shippingEndpoint; choose one',
      );
    });

    it('fails when demo is neither true nor false', () => {
      expect(() => resolve({ demo: 'yes' })).toThrow('CDK context "demo" must be true or false, got "yes"');
    });

    it('fails when an auth or function ARN comes without its endpoint', () => {
      expect(() => resolve({ demo: 'true', paymentAuth: 'iam' })).toThrow(
        "Downstream: paymentAuth set without the service's endpoint",
      );
    });

    it.each([
      [
        'plain http on AWS',
        'http://inventory.example.com',
        "inventoryEndpoint must be an absolute https URL, got 'http://inventory.example.com'",
      ],
      [
        'a relative URL',
        'inventory.example.com',
        "inventoryEndpoint must be an absolute https URL, got 'inventory.example.com'",
      ],
      ['another scheme', 'ftp://inventory.example.com', 'inventoryEndpoint must be an absolute https URL'],
      [
        'credentials in the URL',
        'https://user:secret@inventory.example.com',
        'inventoryEndpoint must not carry credentials in the URL',
      ],
      ['a query', 'https://inventory.example.com?x=1', 'inventoryEndpoint must have no query or fragment'],
    ])('fails on %s', (_case, url, message) => {
      expect(() => resolve({ ...ENDPOINTS_CONTEXT, inventoryEndpoint: url })).toThrow(message);
    });

    it('names every bad endpoint at once', () => {
      expect(() =>
        resolve({ ...ENDPOINTS_CONTEXT, paymentEndpoint: 'http://p', shippingEndpoint: 'ship' }),
      ).toThrow(
        "Downstream: paymentEndpoint must be an absolute https URL, got 'http://p'; shippingEndpoint must be an absolute https URL, got 'ship'",
      );
    });

    it('fails on an unknown auth mode', () => {
      expect(() => resolve({ ...ENDPOINTS_CONTEXT, shippingAuth: 'apikey' })).toThrow(
        "shippingAuth must be 'iam' or 'none', got 'apikey'",
      );
    });

    it('fails when IAM auth has no function ARN, a bad one, or a URL that is not a function URL', () => {
      const { inventoryFunctionArn: _, ...withoutArn } = IAM_ENDPOINTS_CONTEXT;
      expect(() => resolve(withoutArn)).toThrow(
        'inventoryFunctionArn is required with inventoryAuth=iam (the function the agent is allowed to invoke)',
      );
      expect(() => resolve({ ...IAM_ENDPOINTS_CONTEXT, inventoryFunctionArn: 'inventory-service' })).toThrow(
        "inventoryFunctionArn must be a Lambda function ARN, got 'inventory-service'",
      );
      expect(() =>
        resolve({ ...IAM_ENDPOINTS_CONTEXT, inventoryEndpoint: 'https://inventory.example.com' }),
      ).toThrow(
        "inventoryEndpoint must be a Lambda function URL (https://<id>.lambda-url.<region>.on.aws) with inventoryAuth=iam, got 'https://inventory.example.com'",
      );
      expect(() =>
        resolve({
          ...IAM_ENDPOINTS_CONTEXT,
          inventoryFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:inventory-service',
        }),
      ).toThrow('inventoryFunctionArn is in us-east-1 but inventoryEndpoint in eu-west-1');
    });

    it('fails when a function ARN is given without IAM auth', () => {
      expect(() =>
        resolve({ ...ENDPOINTS_CONTEXT, paymentFunctionArn: IAM_ENDPOINTS_CONTEXT.inventoryFunctionArn }),
      ).toThrow('paymentFunctionArn is only used with paymentAuth=iam');
    });

    it('the stack synthesis itself fails with the message (the wiring bin/app.ts uses)', () => {
      expect(() => synthesizeStack('default')).toThrow(NEITHER);
      expect(() =>
        synthesizeStack('default', { context: { ...DEMO_CONTEXT, paymentEndpoint: 'x' } }),
      ).toThrow(/demo=true deploys the fake services/);
    });

    it('fails when the deployment runs the fakes but its composition root gave no factory for them', () => {
      const app = testApp({ profile: 'local' });
      expect(() => addSchedulerAgentSupervisor(app, undefined as unknown as FakeDownstreamFactory)).toThrow(
        'SchedulerAgentSupervisor: the deployment runs the fake downstream services, but no fakeDownstream factory was given (bin/app.ts passes lib/fakes)',
      );
    });

    it('`cdk synth` of bin/app.ts with the default profile and neither choice exits non-zero naming them', () => {
      const root = path.resolve(__dirname, '..', '..', '..');
      // What the CDK CLI hands the app: context as JSON and an output directory.
      const outdir = mkdtempSync(path.join(tmpdir(), 'sas-synth-'));
      const result = spawnSync(process.execPath, [require.resolve('tsx/cli'), 'bin/app.ts'], {
        cwd: root,
        env: { ...process.env, CDK_CONTEXT_JSON: JSON.stringify({ profile: 'default' }), CDK_OUTDIR: outdir },
        encoding: 'utf8',
        timeout: 60_000,
      });
      rmSync(outdir, { recursive: true, force: true });
      expect(result.status).not.toBe(0);
      expect(result.stderr).toContain(NEITHER);
    });
  });
});
