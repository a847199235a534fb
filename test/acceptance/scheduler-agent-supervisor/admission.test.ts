/**
 * Admission control end to end, on the local runtime, with a limit small enough to reach: the app
 * is synthesized with `-c admissionLimit=4 -c admissionShards=2` (CDK context overriding the local
 * profile, read by lib/scheduler-agent-supervisor/deployment.ts) into an assembly of its own and run
 * on a runtime of its own, so the shared runtime's limit (the local profile's) stays as the other
 * scenarios need it. Slow orders (STALL-ONCE: the payment call is held past the step timeout, the
 * supervisor resets the attempt, attempt 2 completes) keep the slots taken long enough to see
 * refusals. Like the shared runtime, it runs on the tests' clock with their timings (virtual, the
 * deployed ones: test/support/test-clock.ts): the slow orders' minutes pass once nothing else is in
 * progress, instead of a minute of wall time with the local profile's seconds.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient, paginateScan } from '@aws-sdk/client-dynamodb';
import { TERMINAL_STATES } from '../../../lambdas/scheduler-agent-supervisor/contracts';
import { type LocalRuntime, startLocalRuntime, synthesizeLocalAssembly } from '../../../lib/local-runtime';
import { testClock, testTimingsContext } from '../../support/test-clock';
import { awsClientConfig } from '../client-support';
import { parseTargetDescription, type TargetDescription } from '../target';
import { SystemClient } from './system-client';

const LIMIT = 4;
const SHARDS = 2;

jest.setTimeout(600_000);

let workDir: string;
let runtime: LocalRuntime;
let target: TargetDescription;
let system: SystemClient;
let dynamo: DynamoDBClient;

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'admission-acceptance-'));
  const assemblyDir = join(workDir, 'cdk.out');
  synthesizeLocalAssembly(assemblyDir, {
    context: { ...testTimingsContext(), admissionLimit: String(LIMIT), admissionShards: String(SHARDS) },
  });
  runtime = await startLocalRuntime({
    assemblyDir,
    port: 0,
    targetFile: null,
    clock: testClock(),
    log: () => undefined,
  });
  target = parseTargetDescription(runtime.target, { kind: 'local' });
  system = new SystemClient(target);
  dynamo = new DynamoDBClient(awsClientConfig(target, 'dynamodb'));
});

afterAll(async () => {
  system?.close();
  dynamo?.destroy();
  await runtime?.stop();
  rmSync(workDir, { recursive: true, force: true });
});

async function scan(tableName: string): Promise<Record<string, { S?: string; N?: string }>[]> {
  const items: Record<string, { S?: string; N?: string }>[] = [];
  for await (const page of paginateScan({ client: dynamo }, { TableName: tableName, ConsistentRead: true })) {
    items.push(...((page.Items ?? []) as Record<string, { S?: string; N?: string }>[]));
  }
  return items;
}

/** Slots held (the counters) and orders not yet terminal (the state records), right now. */
async function inFlight(): Promise<{ counted: number; nonTerminal: number }> {
  const [counters, records] = await Promise.all([
    scan(target.outputs.AdmissionTableName as string),
    scan(target.outputs.StateTableName),
  ]);
  const counted = counters
    .filter((item) => item.Pk?.S?.startsWith('shard#'))
    .reduce((sum, item) => sum + Number(item.InFlight?.N ?? 0), 0);
  const nonTerminal = records.filter(
    (item) => !(TERMINAL_STATES as readonly string[]).includes(item.ProcessState?.S ?? ''),
  ).length;
  return { counted, nonTerminal };
}

const order = (orderId: string) => ({
  orderId,
  customerId: 'customer-admission',
  items: [{ sku: 'STALL-ONCE', quantity: 1 }],
  totalCents: 500,
  currency: 'EUR',
});

it('refuses past the limit with 429 and Retry-After, never holds more than the limit in flight, completes every accepted order, and accepts again as the backlog drains', async () => {
  const ids = Array.from({ length: LIMIT + 4 }, (_, index) => `adm-${Date.now()}-${index}`);
  const accepted = new Set<string>();
  const retryAfters: number[] = [];
  let maxCounted = 0;
  let maxNonTerminal = 0;
  let polling = true;
  const poller = (async () => {
    while (polling) {
      const now = await inFlight();
      maxCounted = Math.max(maxCounted, now.counted);
      maxNonTerminal = Math.max(maxNonTerminal, now.nonTerminal);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  })();

  const submitPending = async () => {
    for (const id of ids.filter((candidate) => !accepted.has(candidate))) {
      const response = await system.submit(order(id));
      if (response.status === 202) accepted.add(id);
      else {
        expect(response.status).toBe(429);
        const retryAfter = Number(response.headers.get('retry-after'));
        expect(Number.isInteger(retryAfter)).toBe(true);
        expect(retryAfter).toBeGreaterThanOrEqual(1);
        expect(retryAfter).toBeLessThanOrEqual(60);
        retryAfters.push(retryAfter);
      }
    }
  };

  try {
    await submitPending();
    // Exactly the limit taken at once; the rest refused.
    expect(accepted.size).toBe(LIMIT);
    expect(retryAfters).toHaveLength(ids.length - LIMIT);

    // The refused clients come back (every 2 s here, sooner than Retry-After asks: they only get
    // 429 again) until the drain has made room for all of them.
    const deadline = Date.now() + 240_000;
    while (accepted.size < ids.length && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      await submitPending();
    }
    expect(accepted.size).toBe(ids.length);

    for (const id of ids) {
      const state = await system.waitForState(id, [...TERMINAL_STATES], 180_000);
      expect(state.processState).toBe('Processed');
    }
    // Every slot comes back once its order is terminal (the stream consumer).
    const drained = Date.now() + 30_000;
    while ((await inFlight()).counted > 0 && Date.now() < drained) {
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(await inFlight()).toEqual({ counted: 0, nonTerminal: 0 });
  } finally {
    polling = false;
    await poller;
  }
  expect(maxCounted).toBeLessThanOrEqual(LIMIT);
  expect(maxNonTerminal).toBeLessThanOrEqual(LIMIT);
  expect(maxCounted).toBe(LIMIT);
});
