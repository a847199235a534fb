import { type App, Stack, Validations } from 'aws-cdk-lib';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import {
  DEMO_CONTEXT,
  ENDPOINTS_CONTEXT,
  IAM_ENDPOINTS_CONTEXT,
  type SynthOptions,
  synthesizeStack,
  testApp,
} from '../support/synth';

interface Acknowledgment {
  readonly path: string;
  readonly id: string;
  readonly reason: string;
}

function acknowledgments(root: IConstruct): Acknowledgment[] {
  return root.node.findAll().flatMap((construct) =>
    construct.node.metadata
      .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .flatMap((entry) =>
        Object.entries(entry.data as Record<string, string>).map(([id, reason]) => ({
          path: construct.node.path,
          id: id.replace(/^annotation::/i, ''),
          reason,
        })),
      ),
  );
}

const violationsOf = (app: App) =>
  new AwsSolutionsChecks().validateScope(app).violations.map((v) => ({
    rule: v.ruleName,
    resources: v.violatingResources.map((r) => r.constructPath),
  }));

describe('cdk-nag AwsSolutions', () => {
  it.each<[string, string, SynthOptions['context']]>([
    ['default', 'demo (fake services)', DEMO_CONTEXT],
    // Two state machines, each with its own ScopedRole, and the v2-only agent.
    ['default', 'demo, workflow versions 1 and 2 live', { ...DEMO_CONTEXT, workflowVersion: '2' }],
    ['default', 'real endpoints', ENDPOINTS_CONTEXT],
    ['default', 'real endpoints, one behind IAM', IAM_ENDPOINTS_CONTEXT],
    ['local', 'fake services', {}],
  ])('profile %s, %s: no unacknowledged error or warning', (profile, _variant, context) => {
    const { app } = synthesizeStack(profile, { alertEmail: 'ops@example.com', context });
    expect(violationsOf(app)).toEqual([]);
  });

  it('every acknowledgment is on a resource (never the app or the stack), names a rule and gives a reason', () => {
    const { app, stack } = synthesizeStack('default', { context: DEMO_CONTEXT });
    const all = acknowledgments(app);
    expect(all.length).toBeGreaterThan(0);
    for (const ack of all) {
      expect(ack.path).not.toBe(stack.node.path);
      expect(ack.path.startsWith(`${stack.node.path}/`)).toBe(true);
      expect(ack.id).toMatch(/^AwsSolutions-[A-Z]+[0-9]+(\[.+\])?$/);
      expect(ack.reason.length).toBeGreaterThan(30);
    }
  });

  it('fails when a rule is broken and not acknowledged (the check is live)', () => {
    const app = testApp();
    const stack = new Stack(app, 'Probe');
    new sqs.Queue(stack, 'Unencrypted', { encryption: sqs.QueueEncryption.UNENCRYPTED });
    expect(violationsOf(app).map((v) => v.rule)).toEqual(
      expect.arrayContaining(['AwsSolutions-SQS3', 'AwsSolutions-SQS4']),
    );
  });
});
