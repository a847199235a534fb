/**
 * Admission control end to end, on the local runtime, with a limit small enough to reach: the app
 * is synthesized with `-c admissionLimit=4 -c admissionShards=2` (CDK context overriding the local
 * profile, read by lib/scheduler-agent-supervisor/deployment.ts) into an assembly of its own and run
 * on a runtime of its own, so the shared runtime's limit (the local profile's) stays as the other
 * scenarios need it. The profile's two clients each get an equal share of it (2 of 4). Slow orders
 * (STALL-ONCE: the payment call is held past the step timeout, the supervisor resets the attempt,
 * attempt 2 completes) keep the slots taken long enough to see refusals: one client floods, holds
 * its share and no more, and the other client's orders are still admitted. Like the shared
 * runtime, it runs on the tests' clock with their timings (virtual, the deployed ones:
 * test/support/test-clock.ts): the slow orders' minutes pass once nothing else is in progress,
 * instead of a minute of wall time with the local profile's seconds.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient, paginateScan } from '@aws-sdk/client-dynamodb';
import { TERMINAL_STATES } from '../../../lambdas/scheduler-agent-supervisor/contracts';
import { type LocalRuntime, startLocalRuntime, synthesizeLocalAssembly } from '../../../lib/local-runtime';
import type { ClientOutput } from '../../../lib/scheduler-agent-supervisor/stack';
import { testClock, testTimingsContext } from '../../support/test-clock';
import { type ApiResponse, apiRequest, awsClientConfig } from '../client-support';
import { parseTargetDescription, type TargetDescription } from '../target';
import { SystemClient } from './system-client';

const LIMIT = 4;
const SHARDS = 2;
/** Each of the profile's two clients' share of the limit (an equal share: none is configured). */
const SHARE = LIMIT / 2;

jest.setTimeout(600_000);

let workDir: string;
let runtime: LocalRuntime;
let target: TargetDescription;
let system: SystemClient;
let dynamo: DynamoDBClient;
/** The two clients' API keys: the one that floods, and the other. */
let flooder: string;
let other: string;

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
  const clients = JSON.parse(target.outputs.Clients ?? '[]') as ClientOutput[];
  const keyOf = (index: number) => {
    const key = target.apiKeysById?.[clients[index]?.apiKeyId ?? ''];
    if (!key) throw new Error(`No API key of client ${index} in the local target`);
    return key;
  };
  [flooder, other] = [keyOf(0), keyOf(1)];
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

/**
 * Slots held (the limit's counters), the most one client's counters hold, and orders not yet
 * terminal (the state records), right now.
 */
async function inFlight(): Promise<{ counted: number; mostByOneClient: number; nonTerminal: number }> {
  const [counters, records] = await Promise.all([
    scan(target.outputs.AdmissionTableName as string),
    scan(target.outputs.StateTableName),
  ]);
  const sum = (prefix: string) =>
    counters
      .filter((item) => item.Pk?.S?.startsWith(prefix))
      .reduce((total, item) => total + Number(item.InFlight?.N ?? 0), 0);
  const clientIds = new Set(counters.map((item) => /^client#(.+)#shard#/.exec(item.Pk?.S ?? '')?.[1]));
  clientIds.delete(undefined);
  const mostByOneClient = Math.max(0, ...[...clientIds].map((clientId) => sum(`client#${clientId}#`)));
  const nonTerminal = records.filter(
    (item) => !(TERMINAL_STATES as readonly string[]).includes(item.ProcessState?.S ?? ''),
  ).length;
  return { counted: sum('shard#'), mostByOneClient, nonTerminal };
}

const submitAs = (key: string, body: unknown): Promise<ApiResponse> =>
  apiRequest(target, 'POST', '/orders', JSON.stringify(body), { 'x-api-key': key });

const order = (orderId: string) => ({
  orderId,
  customerId: 'customer-admission',
  items: [{ sku: 'STALL-ONCE', quantity: 1 }],
  totalCents: 500,
  currency: 'EUR',
});

it("one client flooding holds its share and no more (429 naming its share, Retry-After), the other client's orders are still admitted, nothing passes the limit, and every accepted order completes as the backlog drains", async () => {
  const stamp = Date.now();
  const floodIds = Array.from({ length: LIMIT + 4 }, (_, index) => `adm-${stamp}-flood-${index}`);
  const otherIds = Array.from({ length: SHARE }, (_, index) => `adm-${stamp}-other-${index}`);
  const keyOf = new Map([
    ...floodIds.map((id) => [id, flooder] as const),
    ...otherIds.map((id) => [id, other] as const),
  ]);
  const accepted = new Set<string>();
  const refusals: { id: string; retryAfter: number; message: string }[] = [];
  let maxCounted = 0;
  let maxByOneClient = 0;
  let maxNonTerminal = 0;
  let polling = true;
  const poller = (async () => {
    while (polling) {
      const now = await inFlight();
      maxCounted = Math.max(maxCounted, now.counted);
      maxByOneClient = Math.max(maxByOneClient, now.mostByOneClient);
      maxNonTerminal = Math.max(maxNonTerminal, now.nonTerminal);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  })();

  const submitPending = async (ids: readonly string[]) => {
    for (const id of ids.filter((candidate) => !accepted.has(candidate))) {
      const response = await submitAs(keyOf.get(id) as string, order(id));
      if (response.status === 202) accepted.add(id);
      else {
        expect(response.status).toBe(429);
        const retryAfter = Number(response.headers.get('retry-after'));
        expect(Number.isInteger(retryAfter)).toBe(true);
        expect(retryAfter).toBeGreaterThanOrEqual(1);
        expect(retryAfter).toBeLessThanOrEqual(60);
        refusals.push({ id, retryAfter, message: String((response.body as { message?: unknown }).message) });
      }
    }
  };

  try {
    // The flood: the first client holds exactly its share, every other order of it is refused,
    // naming its share.
    await submitPending(floodIds);
    expect(floodIds.filter((id) => accepted.has(id))).toHaveLength(SHARE);
    expect(refusals.map((refusal) => refusal.id)).toEqual(floodIds.filter((id) => !accepted.has(id)));
    for (const refusal of refusals) {
      expect(refusal.message).toMatch(
        /^Too many orders in progress for client '[a-z0-9-]+' \(its share of the limit\)/,
      );
    }
    // The other client, while the flood's slow orders still hold their slots: admitted.
    await submitPending(otherIds);
    expect(otherIds.filter((id) => !accepted.has(id))).toEqual([]);
    expect((await inFlight()).counted).toBe(LIMIT);

    // The refused orders come back (every 2 s here, sooner than Retry-After asks: they only get
    // 429 again) until the drain has made room for all of them.
    const deadline = Date.now() + 240_000;
    while (accepted.size < keyOf.size && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      await submitPending(floodIds);
    }
    expect(accepted.size).toBe(keyOf.size);

    for (const id of keyOf.keys()) {
      const state = await system.waitForState(id, [...TERMINAL_STATES], 180_000);
      expect(state.processState).toBe('Processed');
    }
    // Every slot comes back once its order is terminal (the stream consumer), the clients' too.
    const drained = Date.now() + 30_000;
    const empty = { counted: 0, mostByOneClient: 0, nonTerminal: 0 };
    while (JSON.stringify(await inFlight()) !== JSON.stringify(empty) && Date.now() < drained) {
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(await inFlight()).toEqual(empty);
  } finally {
    polling = false;
    await poller;
  }
  expect(maxCounted).toBeLessThanOrEqual(LIMIT);
  expect(maxNonTerminal).toBeLessThanOrEqual(LIMIT);
  expect(maxByOneClient).toBeLessThanOrEqual(SHARE);
  expect(maxCounted).toBe(LIMIT);
});
