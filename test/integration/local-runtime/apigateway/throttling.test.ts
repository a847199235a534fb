/**
 * API Gateway's throttling on the local runtime, on a small app (fixtures/throttle-app.ts): a
 * client flooding past its usage plan is answered 429 `{"message":"Too Many Requests"}` without
 * its integration running (the function's invocations, metered), while the other client, in a
 * plan of its own, is still served; a method's stage throttle counts all its callers together, and
 * each method has its own. A key in two usage plans of a stage is refused as API Gateway refuses
 * it: at start, and on a redeploy that moves a key to another plan (CloudFormation creates the new
 * association before it deletes the old), which leaves the running app serving. Every bucket is
 * refilled at one request per 1,000 s, so what is counted does not depend on how long the test takes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type LocalRuntime, startLocalRuntime } from '../../../../lib/local-runtime';
import { testClock } from '../../../support/test-clock';
import { FLOODER_BURST, OTHER_BURST, STAGE_BURST, synthesizeThrottleApp } from '../fixtures/throttle-app';

jest.setTimeout(120_000);

describe('API Gateway throttling on the local runtime', () => {
  let workDir: string;
  let runtime: LocalRuntime;
  let baseUrl: string;
  let flooderKey: string;
  let otherKey: string;

  const get = async (path: string, apiKey?: string) => {
    const response = await fetch(`${baseUrl}${path}`, { headers: apiKey ? { 'x-api-key': apiKey } : {} });
    return { status: response.status, body: await response.text() };
  };
  const invocations = () =>
    runtime.usage().functions[runtime.target.outputs.FunctionName ?? '']?.invocations ?? 0;
  const statuses = (answers: readonly { status: number }[]) => answers.map(({ status }) => status).sort();

  beforeAll(async () => {
    workDir = mkdtempSync(join(tmpdir(), 'throttle-runtime-'));
    synthesizeThrottleApp(join(workDir, 'cdk.out'));
    runtime = await startLocalRuntime({
      assemblyDir: join(workDir, 'cdk.out'),
      port: 0,
      targetFile: null,
      dataDir: join(workDir, 'data'),
      metering: true,
      clock: testClock(),
      log: () => undefined,
    });
    const api = runtime.target.apis?.ThrottleFixture;
    baseUrl = (api?.url ?? '').replace(/\/$/, '');
    const keyOf = (id: string | undefined) => api?.apiKeyIds?.[id ?? ''] ?? '';
    flooderKey = keyOf(runtime.target.outputs.FlooderKeyId);
    otherKey = keyOf(runtime.target.outputs.OtherKeyId);
    expect(flooderKey).not.toBe('');
    expect(otherKey).not.toBe('');
  });

  afterAll(async () => {
    await runtime?.stop();
    rmSync(workDir, { recursive: true, force: true });
  });

  it("answers a client flooding past its usage plan 429 without running the integration, and still serves the other client's requests", async () => {
    const before = invocations();
    const flood = await Promise.all(Array.from({ length: 8 }, () => get('/ping', flooderKey)));
    expect(statuses(flood)).toEqual([
      ...Array<number>(FLOODER_BURST).fill(200),
      ...Array<number>(8 - FLOODER_BURST).fill(429),
    ]);
    for (const refused of flood.filter(({ status }) => status === 429)) {
      expect(JSON.parse(refused.body)).toEqual({ message: 'Too Many Requests' });
    }
    const served = await Promise.all(Array.from({ length: OTHER_BURST }, () => get('/ping', otherKey)));
    expect(statuses(served)).toEqual(Array<number>(OTHER_BURST).fill(200));
    // Only the requests let through reached the function.
    expect(invocations() - before).toBe(FLOODER_BURST + OTHER_BURST);
    // The other client has a limit of its own too, and the flooder is still throttled.
    expect((await get('/ping', otherKey)).status).toBe(429);
    expect((await get('/ping', flooderKey)).status).toBe(429);
  });

  it("throttles a method for all its callers together at the stage's limits, each method on its own", async () => {
    const open = await Promise.all(Array.from({ length: STAGE_BURST + 2 }, () => get('/open')));
    expect(statuses(open)).toEqual([...Array<number>(STAGE_BURST).fill(200), 429, 429]);
    expect((await get('/also-open')).status).toBe(200);
  });

  it('refuses a redeploy that moves a key to another plan of the stage, and the running app goes on serving', async () => {
    const moved = join(workDir, 'cdk.out.moved');
    synthesizeThrottleApp(moved, 'other-moved');
    const redeployed = runtime.redeploy(moved);
    // Were it to succeed, the new runtime is the one to stop.
    redeployed.then(
      (next) => {
        runtime = next;
      },
      () => undefined,
    );
    await expect(redeployed).rejects.toThrow(
      /redeploy refused, as AWS would fail this deployment .*the running app is left as it was:\n {2}ThrottleFixture\/ApiFlooderPlanUsagePlanKeyResource\w+ \(AWS::ApiGateway::UsagePlanKey\): ConflictException: API key ThrottleFixture\/ApiOther\w+ is already in usage plan ThrottleFixture\/ApiOtherPlan\w+ on stage ThrottleFixture\/Api\w+\/v1 \(ThrottleFixture\/ApiOtherPlanUsagePlanKeyResource\w+, which this deployment removes/,
    );
    expect((await get('/also-open')).status).toBe(200);
  });

  it('refuses to start an app that puts a key in two usage plans of a stage', async () => {
    const both = join(workDir, 'cdk.out.both');
    synthesizeThrottleApp(both, 'other-in-both');
    const started = startLocalRuntime({ assemblyDir: both, port: 0, targetFile: null, log: () => undefined });
    // Were it to start, it is stopped.
    started.then(
      (leaked) => leaked.stop(),
      () => undefined,
    );
    await expect(started).rejects.toThrow(
      /start refused, as AWS would fail this deployment .*:\n {2}ThrottleFixture\/Api\w+UsagePlanKeyResource\w+ \(AWS::ApiGateway::UsagePlanKey\): ConflictException: API key ThrottleFixture\/ApiOther\w+ is already in usage plan ThrottleFixture\/Api(Flooder|Other)Plan\w+ on stage ThrottleFixture\/Api\w+\/v1;/,
    );
  });
});
