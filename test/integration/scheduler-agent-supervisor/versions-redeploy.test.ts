/**
 * Workflow versions across a deployment, for real: the app runs workflow v1 (`npm start -- --data`),
 * orders are in flight, and the runtime is redeployed with the v2 assembly (`-c workflowVersion=2`,
 * one more step: AwardLoyaltyPoints) on the same data directory. The redeploy kills the in-flight
 * executions (the local engine is in memory; on AWS they would run on): the supervisor expires
 * those attempts and the starter retries them on their own version's state machine, so v1 orders
 * still end with exactly v1's three steps while new orders run v2's four. Each effect happens once.
 * A record of an unknown workflow version (99) is refused and left exactly as it was, and the
 * refusal reaches the operator: the UnsupportedRecordVersions alarm goes to ALARM.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CloudWatchClient, DescribeAlarmsCommand } from '@aws-sdk/client-cloudwatch';
import { DynamoDBClient, GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { APP_API_PORT_ORDER } from '../../../bin/app-api-port-order';
import { workflowSteps } from '../../../lambdas/scheduler-agent-supervisor/contracts';
import { ORDER_ALARMS, OrderMetric } from '../../../lambdas/scheduler-agent-supervisor/contracts/metrics';
import { type LocalRuntime, startLocalRuntime, synthesizeLocalAssembly } from '../../../lib/local-runtime';
import { SAS_PROFILES } from '../../../lib/scheduler-agent-supervisor/config';
import { awsClientConfig } from '../../acceptance/client-support';
import { SystemClient } from '../../acceptance/scheduler-agent-supervisor/system-client';
import { ORDERS_APP, parseTargetDescription, type TargetDescription } from '../../acceptance/target';
import { testClock, testTimingsContext } from '../../support/test-clock';

jest.setTimeout(300_000);

const V1 = workflowSteps(1).map((step) => step.name);
const V2 = workflowSteps(2).map((step) => step.name);

/**
 * The v1 assembly's context: the tests' timings only while v1 is the local profile's current
 * version, so it is the very assembly the acceptance setup synthesizes (same context, same
 * sources), which synthesizeLocalAssembly can reuse instead of running cdk again.
 */
const V1_CONTEXT: Readonly<Record<string, string>> = {
  ...testTimingsContext(),
  ...(SAS_PROFILES.local.workflow.current === 1 ? {} : { workflowVersion: '1' }),
};

const order = (orderId: string, sku = 'SKU-1') => ({
  orderId,
  customerId: 'c-versions',
  items: [{ sku, quantity: 1 }],
  totalCents: 900,
  currency: 'EUR',
});

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`Timed out waiting for ${what}`);
}

describe('workflow versions across a local redeploy (v1 -> v2, same data)', () => {
  let workDir: string;
  let runtime: LocalRuntime | undefined;
  let system: SystemClient | undefined;
  let target: TargetDescription;
  const v1Dir = () => join(workDir, 'cdk.out.v1');
  const v2Dir = () => join(workDir, 'cdk.out.v2');
  const logDir = () => join(workDir, 'logs');

  const connect = (running: LocalRuntime) => {
    system?.close();
    target = parseTargetDescription(running.target, { kind: 'local' });
    system = new SystemClient(target);
    return system;
  };
  const stateItem = async (orderId: string) => {
    const dynamo = new DynamoDBClient(awsClientConfig(target, 'dynamodb'));
    try {
      const { Item } = await dynamo.send(
        new GetItemCommand({
          TableName: target.outputs.StateTableName,
          Key: { OrderID: { S: orderId } },
          ConsistentRead: true,
        }),
      );
      return Item;
    } finally {
      dynamo.destroy();
    }
  };
  const effectKeys = async (orderId: string) =>
    ((await system?.ledgerEffects(orderId)) ?? []).map((effect) => effect.IdempotencyKey?.S ?? '').sort();
  const keysOf = (orderId: string, steps: readonly string[]) =>
    steps.map((step) => `${orderId}:${step}`).sort();

  beforeAll(() => {
    workDir = mkdtempSync(join(tmpdir(), 'versions-it-'));
    synthesizeLocalAssembly(v1Dir(), { context: V1_CONTEXT });
    synthesizeLocalAssembly(v2Dir(), { context: { ...testTimingsContext(), workflowVersion: '2' } });
  });

  afterAll(async () => {
    system?.close();
    await runtime?.stop();
    rmSync(workDir, { recursive: true, force: true });
  });

  it('keeps v1 orders (including those retried after the redeploy) on v1 steps, runs new orders on v2, refuses version 99', async () => {
    runtime = await startLocalRuntime({
      assemblyDir: v1Dir(),
      dataDir: join(workDir, 'data'),
      port: 0,
      apiPortOrder: APP_API_PORT_ORDER,
      targetFile: null,
      functionLogDir: logDir(),
      log: () => undefined,
      clock: testClock(),
    });
    let client = connect(runtime);
    const apis = runtime.target.apis;
    expect(runtime.target.apiUrl).toBe(apis?.[ORDERS_APP.stackName]?.url);
    const run = Date.now().toString(36);
    const done = `v1-done-${run}`;
    const stalled = `v1-stalled-${run}`;

    // On v1: one order finishes, another is mid-flight (its payment call stalls once). The stalled
    // charge is caught first: its step times out 6 s after it started, and waiting for the other
    // order before looking can outlast that on a loaded machine (it did in CI).
    expect((await client.submit(order(done))).status).toBe(202);
    expect((await client.submit(order(stalled, 'STALL-ONCE'))).status).toBe(202);
    await until('the stalled charge to be in flight', async () =>
      (await effectKeys(stalled)).includes(`${stalled}:ChargePayment`),
    );
    expect((await client.state(stalled))?.steps.ChargePayment).toBe('Running');
    expect(await client.waitForState(done, ['Processed', 'Error'], 60_000)).toMatchObject({
      processState: 'Processed',
    });

    // A record written by a newer deployment (version 99), due now: nobody here may run it.
    const future = `v99-${run}`;
    const futureItem = {
      OrderID: { S: future },
      ProcessState: { S: 'Pending' },
      CompleteBy: { N: String(Date.now() - 60_000) },
      DueShard: { S: '0' },
      FailureCount: { N: '0' },
      Attempt: { N: '0' },
      Steps: { M: { Teleport: { M: { Status: { S: 'NotStarted' } } } } },
      CompensationLog: { M: {} },
      CompensationFailureCount: { N: '0' },
      OrderFingerprint: { S: 'f'.repeat(64) },
      SchemaVersion: { N: '3' },
      WorkflowVersion: { N: '99' },
      CreatedAt: { S: new Date().toISOString() },
      UpdatedAt: { S: new Date().toISOString() },
    };
    const dynamo = new DynamoDBClient(awsClientConfig(target, 'dynamodb'));
    await dynamo.send(new PutItemCommand({ TableName: target.outputs.StateTableName, Item: futureItem }));
    dynamo.destroy();

    // Redeploy v2 on the same data: the stalled execution dies with the old runtime.
    runtime = await runtime.redeploy(v2Dir());
    client = connect(runtime);
    // Every API where its clients know it, the orders API on the base port as before.
    expect(runtime.target.apis).toEqual(apis);
    expect(runtime.target.apiUrl).toBe(apis?.[ORDERS_APP.stackName]?.url);
    const fresh = `v2-new-${run}`;
    expect((await client.submit(order(fresh))).status).toBe(202);

    const retried = await client.waitForState(stalled, ['Processed', 'Error'], 120_000);
    expect(retried.processState).toBe('Processed');
    expect(retried.attempt).toBeGreaterThan(1);
    expect(Object.keys(retried.steps).sort()).toEqual([...V1].sort());
    expect((await client.waitForState(fresh, ['Processed', 'Error'], 60_000)).processState).toBe('Processed');

    // v1 orders: v1's three effects, once each, no loyalty award; the new order: v2's four.
    expect(await effectKeys(done)).toEqual(keysOf(done, V1));
    expect(await effectKeys(stalled)).toEqual(keysOf(stalled, V1));
    expect(await effectKeys(fresh)).toEqual(keysOf(fresh, V2));
    for (const [orderId, version, steps] of [
      [done, '1', V1],
      [stalled, '1', V1],
      [fresh, '2', V2],
    ] as const) {
      const item = await stateItem(orderId);
      expect(item?.WorkflowVersion?.N).toBe(version);
      expect(Object.keys(item?.Steps?.M ?? {}).sort()).toEqual([...steps].sort());
    }

    // The supervisor met the v99 record (its log says so), refused it and left it as it was.
    await until('the supervisor to refuse the version 99 record', async () =>
      logsMention(logDir(), 'UnsupportedRecordVersion', future),
    );
    expect(await stateItem(future)).toEqual(futureItem);

    // Every sweep counts the stranded record again: the contract's alarm on it fires.
    const spec = ORDER_ALARMS.find((alarm) => alarm.metric === OrderMetric.UnsupportedRecordVersions);
    const alarmName = `${ORDERS_APP.stackName}-${spec?.name}`;
    const cloudwatch = new CloudWatchClient(awsClientConfig(target, 'cloudwatch'));
    try {
      await until(
        `${alarmName} to be in ALARM`,
        async () => {
          const { MetricAlarms = [] } = await cloudwatch.send(
            new DescribeAlarmsCommand({ AlarmNames: [alarmName] }),
          );
          return MetricAlarms[0]?.StateValue === 'ALARM';
        },
        90_000,
      );
    } finally {
      cloudwatch.destroy();
    }
  });
});

/** Whether any function log line mentions both strings (the function logs are JSON lines). */
function logsMention(dir: string, first: string, second: string): boolean {
  if (!existsSync(dir)) return false;
  return readdirSync(dir).some((name) =>
    readFileSync(join(dir, name), 'utf8')
      .split('\n')
      .some((line) => line.includes(first) && line.includes(second)),
  );
}
