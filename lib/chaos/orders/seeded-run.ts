/**
 * A seeded run of the app (issue 22, item 4): both stacks on a seeded virtual clock
 * (lib/local-runtime/clock/README.md), plain orders and then deliveries submitted one by one by a
 * client that is one of the clock's actors (each submission starts when the schedule says, not when
 * the machine gets to it), then minutes of the clock for them to run; what it returns is the
 * clock's trace (every admission and timer fired, with its time) and each order's and delivery's end
 * state. Two runs of a seed on one commit give the same trace. With faults: the order campaign with
 * `--trace` (campaign-clock.ts).
 */
import { DeliverySystemDriver } from '../../harness/deliveries-driver';
import { SystemDriver } from '../../harness/orders-driver';
import { type LocalTarget, startLocalRuntime, VirtualClock } from '../../local-runtime';
import { readDeliveryAssemblyFacts } from '../deliveries/assembly';
import { DEFAULT_DELIVERY_FAULT_RATES, DEFAULT_SCENARIO_SHARES, planDeliveries } from '../deliveries/plan';
import { DEFAULT_FAULT_RATES, planCampaign } from './plan';

export interface SeededRunOptions {
  /** A synthesized assembly of the app (the local profile). */
  readonly assemblyDir: string;
  readonly seed: number;
  /** Orders submitted. @default 3 */
  readonly orders?: number;
  /** Deliveries submitted (after the orders), as the delivery campaign plans them without faults. @default 0 */
  readonly deliveries?: number;
  /** Minutes of the clock the run goes on for after the last submission. @default 20 */
  readonly clockMinutes?: number;
}

export interface SeededRunResult {
  /** One line per admission and per timer fired, from the runtime's start to the run's end. */
  readonly trace: readonly string[];
  /** Each order's process state at the end, in submission order (undefined: no record). */
  readonly outcomes: ReadonlyArray<{ readonly orderId: string; readonly processState: string | undefined }>;
  /** Each delivery's status at the end, in submission order (undefined: no record). */
  readonly deliveries: ReadonlyArray<{ readonly deliveryId: string; readonly status: string | undefined }>;
}

export async function runSeededApp(options: SeededRunOptions): Promise<SeededRunResult> {
  const trace: string[] = [];
  let tracing = true;
  const clock = new VirtualClock({ seed: options.seed, trace: (line) => tracing && trace.push(line) });
  const runtime = await startLocalRuntime({
    assemblyDir: options.assemblyDir,
    port: 0,
    targetFile: null,
    clock,
    log: () => undefined,
  });
  try {
    // The client is one of the run's actors: each submission waits its turn on the clock.
    const driver = new SystemDriver(runtime.target, clock);
    const plan = planCampaign({
      orders: options.orders ?? 3,
      seed: options.seed,
      rates: DEFAULT_FAULT_RATES,
      minOrdersPerKind: 0,
      enabledKinds: [],
    });
    for (const order of plan.orders) {
      const client = driver.clients[order.index % driver.clients.length];
      const outcome = await driver.submit(order.request, client?.clientId);
      if (outcome.kind !== 'accepted') {
        throw new Error(`order ${order.orderId} was not accepted: ${JSON.stringify(outcome)}`);
      }
    }
    const deliveries = await submitDeliveries(options, runtime.target, clock);
    await clock.sleep((options.clockMinutes ?? 20) * 60_000);
    tracing = false;
    const records = await driver.records(plan.orders.map((order) => order.orderId));
    const states = new Map(records.map((record) => [record.orderId, record.processState]));
    const items = deliveries.ids.length === 0 ? [] : await deliveries.driver.deliveryItems();
    const statuses = new Map(items.map((item) => [item.deliveryId, item.status]));
    return {
      trace,
      outcomes: plan.orders.map(({ orderId }) => ({ orderId, processState: states.get(orderId) })),
      deliveries: deliveries.ids.map((deliveryId) => ({ deliveryId, status: statuses.get(deliveryId) })),
    };
  } finally {
    await runtime.stop();
    clock.stop();
  }
}

/** Submits the run's deliveries one by one, each as the client's activity on the clock. */
async function submitDeliveries(
  options: SeededRunOptions,
  target: LocalTarget,
  clock: VirtualClock,
): Promise<{ readonly ids: readonly string[]; readonly driver: DeliverySystemDriver }> {
  const count = options.deliveries ?? 0;
  const facts = readDeliveryAssemblyFacts(options.assemblyDir);
  const driver = new DeliverySystemDriver(target, facts.stackName, clock);
  if (count === 0) return { ids: [], driver };
  const plan = planDeliveries({
    deliveries: count,
    seed: options.seed,
    limits: facts.limits,
    rates: DEFAULT_DELIVERY_FAULT_RATES,
    shares: DEFAULT_SCENARIO_SHARES,
    garbageMessages: 0,
    minDeliveriesPerKind: 0,
    enabledKinds: [],
  });
  for (const delivery of plan.deliveries) {
    const outcome = await driver.submit(delivery.request);
    if (outcome.kind !== 'accepted') {
      throw new Error(`delivery ${delivery.deliveryId} was not accepted: ${JSON.stringify(outcome)}`);
    }
  }
  return { ids: plan.deliveries.map((delivery) => delivery.deliveryId), driver };
}
