/**
 * The clients' shares of the orders API's throttle end to end, on the local runtime, with limits
 * small enough to reach: the app is synthesized with `-c apiThrottle=0.01/40 -c
 * throttleShares=web-shop:25,call-center:75` (CDK context overriding the local profile,
 * throttle-overrides.ts) into an assembly of its own, on a runtime of its own, so each client's
 * usage plan allows a burst of its share (10 and 30) refilled at one request per 100 s of the
 * runtime's clock (which an idle system moves on, on the virtual clock: the counts allow the tokens
 * that clock gave back). One client floods past its share and API Gateway
 * answers it 429 `{"message":"Too Many Requests"}` without running submit-order (no order
 * recorded), while the other client's orders are still admitted.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type LocalRuntime, startLocalRuntime, synthesizeLocalAssembly } from '../../../lib/local-runtime';
import type { ClientOutput } from '../../../lib/scheduler-agent-supervisor/stack';
import { testClock, testTimingsContext } from '../../support/test-clock';
import { type ApiResponse, apiRequest } from '../client-support';
import { parseTargetDescription, type TargetDescription } from '../target';
import { SystemClient } from './system-client';

/** The flooder's share of the stage burst of 40 (25 %), and the other's (75 %). */
const FLOODER_BURST = 10;
/** Its usage plan's rate: 25 % of 0.01 a second, raised to API Gateway's least, 0.01 (throttleShareOf). */
const FLOODER_RATE_PER_SECOND = 0.01;
const OTHER_ORDERS = 5;
const FLOOD = 25;

jest.setTimeout(600_000);

let workDir: string;
let runtime: LocalRuntime;
/** The runtime's clock, which refills the buckets (on the virtual clock an idle system moves it on). */
const clock = testClock();
let target: TargetDescription;
let system: SystemClient;
let flooder: string;
let other: string;

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'throttle-shares-acceptance-'));
  const assemblyDir = join(workDir, 'cdk.out');
  synthesizeLocalAssembly(assemblyDir, {
    context: {
      ...testTimingsContext(),
      apiThrottle: '0.01/40',
      throttleShares: 'web-shop:25,call-center:75',
    },
  });
  runtime = await startLocalRuntime({
    assemblyDir,
    port: 0,
    targetFile: null,
    clock,
    log: () => undefined,
  });
  target = parseTargetDescription(runtime.target, { kind: 'local' });
  system = new SystemClient(target);
  const clients = JSON.parse(target.outputs.Clients ?? '[]') as ClientOutput[];
  const keyOf = (name: string) => {
    const client = clients.find((candidate) => candidate.clientId === name);
    const key = target.apiKeysById?.[client?.apiKeyId ?? ''];
    if (!key) throw new Error(`No API key of client ${name} in the local target`);
    return key;
  };
  [flooder, other] = [keyOf('web-shop'), keyOf('call-center')];
});

afterAll(async () => {
  system?.close();
  await runtime?.stop();
  rmSync(workDir, { recursive: true, force: true });
});

const submitAs = (key: string, orderId: string): Promise<ApiResponse> =>
  apiRequest(
    target,
    'POST',
    '/orders',
    JSON.stringify({
      orderId,
      customerId: 'customer-throttle',
      items: [{ sku: 'SKU-1', quantity: 1 }],
      totalCents: 500,
      currency: 'EUR',
    }),
    { 'x-api-key': key },
  );

it("answers a client flooding past its throttle share 429 before submit-order runs, and still admits the other client's orders", async () => {
  const stamp = Date.now();
  const started = clock.now();
  /** Tokens the flooder's bucket has got back since the flood began. */
  const refilled = () => Math.floor(((clock.now() - started) / 1000) * FLOODER_RATE_PER_SECOND);
  const floodIds = Array.from({ length: FLOOD }, (_, index) => `thr-${stamp}-flood-${index}`);
  const flood = await Promise.all(floodIds.map((id) => submitAs(flooder, id)));
  const accepted = floodIds.filter((_, index) => flood[index]?.status === 202);
  const throttled = floodIds.filter((_, index) => flood[index]?.status === 429);
  expect(accepted.length).toBeGreaterThanOrEqual(FLOODER_BURST);
  expect(accepted.length).toBeLessThanOrEqual(FLOODER_BURST + refilled());
  expect(throttled).toHaveLength(FLOOD - accepted.length);
  for (const response of flood.filter(({ status }) => status === 429)) {
    expect(response.body).toEqual({ message: 'Too Many Requests' });
    // API Gateway's answer, not the admission's (which names the client's share and a Retry-After).
    expect(response.headers.get('retry-after')).toBeNull();
  }
  // The integration did not run for them: no order was recorded.
  for (const id of throttled) expect(await system.orderExists(id)).toBe(false);
  for (const id of accepted) expect(await system.orderExists(id)).toBe(true);

  const otherIds = Array.from({ length: OTHER_ORDERS }, (_, index) => `thr-${stamp}-other-${index}`);
  const served = await Promise.all(otherIds.map((id) => submitAs(other, id)));
  expect(served.map(({ status }) => status)).toEqual(Array<number>(OTHER_ORDERS).fill(202));
  // The flooder is still held to its share: no more get through than its bucket got back.
  const again = await Promise.all(
    Array.from({ length: OTHER_ORDERS }, (_, index) => submitAs(flooder, `thr-${stamp}-again-${index}`)),
  );
  const throughAgain = again.filter(({ status }) => status === 202).length;
  expect(throughAgain).toBeLessThanOrEqual(refilled());
  expect(again.map(({ status }) => status)).toContain(429);
});
