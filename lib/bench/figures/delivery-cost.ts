/**
 * Figure "delivery-cost": the billable operations of one Delivered delivery of the drone delivery
 * (Choreography) stack, counted by the local runtime's meter and priced with the us-east-1 list
 * prices, per 1,000 deliveries and by service, as order-cost does for an order (lib/bench/core/
 * unit-cost.ts: the same batch, the same counts, the same prices). The fake drone fleet is a stand-in
 * (real drones fly the deliveries): its invocations and duration are left out.
 */
import { DeliveryStatus } from '../../../lambdas/choreography/contracts';
import type { DroneDeliveryContextKey } from '../../choreography/deployment';
import type { ChartSpec, Figure, FigureResult, Measurement } from '../core/figure';
import { checkTarget } from '../core/figure';
import { BILLED_SERVICES } from '../core/pricing';
import { DELIVERY_STACK, deliveriesApp, deliveryOf } from '../core/terminal-tracker';
import {
  type BatchResult,
  batchMeasurements,
  COST_BATCH,
  describeOutcomes,
  describeTables,
  per1000,
  perUnitCounts,
  round,
  runBatch,
  startCostRun,
  usd,
} from '../core/unit-cost';
import type { AppScope } from '../core/usage-scope';
import { type PriceTable, RECORDED_ON, US_EAST_1_PRICES } from '../prices/us-east-1';

/** The issue's target: at most this many USD per 1,000 Delivered deliveries. */
export const DELIVERY_COST_TARGET_USD = 0.2;
/** The context key of the drone fleet's size (checked against the wing's; a type-only import keeps aws-cdk-lib out). */
const DRONE_FLEET_SIZE: (typeof DroneDeliveryContextKey)['DroneFleetSize'] = 'droneFleetSize';
const PRICES: PriceTable = US_EAST_1_PRICES;
const DELIVERY_NOUN = { singular: 'delivery', plural: 'deliveries' } as const;
const CONCURRENCY = COST_BATCH.concurrency;

interface Sizes {
  /** Deliveries sent once before measuring, so sandboxes are warm (0: none). */
  readonly warmUp: number;
  readonly delivered: number;
  /**
   * A drone per delivery of the run (false: the local profile's 3). Each flies one delivery per 30 s
   * window locally, so more deliveries than drones would wait for one or fail for want of one.
   */
  readonly droneEach: boolean;
}
const FULL: Sizes = { warmUp: 4, delivered: 16, droneEach: true };
/** One delivery, on cold sandboxes: it proves the figure runs. */
const QUICK: Sizes = { warmUp: 0, delivered: 1, droneEach: false };

interface Measured {
  readonly quick: boolean;
  readonly sizes: Sizes;
  readonly scope: AppScope;
  readonly delivered: BatchResult;
}

/** Requests of a batch per delivery on each of the stack's queues, FIFO apart: `queue n, ...`. */
function describeQueues(batch: BatchResult): string {
  return Object.values(batch.work.queues)
    .filter((queue) => queue.billedRequests > 0)
    .map((queue) => `${queue.logicalId} ${round(queue.billedRequests / batch.units, 2)}`)
    .join(', ');
}

function describe(measured: Measured): FigureResult {
  const { delivered, scope, sizes } = measured;
  const cost = per1000(delivered, PRICES);
  const counts = perUnitCounts(delivered);
  const memorySizes = [...new Set(Object.values(delivered.work.functions).map((fn) => fn.memorySizeMb))];
  const unconfirmed = Object.values(PRICES).filter((price) => 'unconfirmed' in price);
  const measurements: Measurement[] = batchMeasurements(
    'delivered',
    'Delivered delivery',
    DELIVERY_NOUN,
    delivered,
    PRICES,
  );
  const chart: ChartSpec = {
    kind: 'bar',
    title: 'Cost per 1,000 Delivered deliveries by service (us-east-1 list prices)',
    xLabel: 'service',
    yLabel: 'USD per 1,000 deliveries',
    points: BILLED_SERVICES.map((service) => ({
      series: 'Delivered',
      x: service,
      y: round(cost.byService[service], 5),
    })),
  };
  const notes = [
    `Measured: the local-profile assembly on the local runtime with metering, ${
      sizes.warmUp > 0
        ? `after a warm-up of ${sizes.warmUp} deliveries, `
        : 'without a warm-up (cold sandboxes included), '
    }${delivered.units} deliveries that go well (one small package, 2 km), ${CONCURRENCY} in flight at a time, with a fleet of ${
      sizes.droneEach
        ? `${sizes.warmUp + sizes.delivered} drones (one per delivery of the run)`
        : "the local profile's 3 drones"
    } (${describeOutcomes(delivered)}); the meter's difference from before the first submission until the stack's work had been quiet for 2 s after the last terminal state, divided by the deliveries (lib/bench/core/unit-cost.ts, as order-cost counts an order).`,
    `Counted for the delivery stack ${DELIVERY_STACK} only, but the fake drone fleet's function (${[...scope.standIns].join(', ') || 'none'}): real drones fly the deliveries, and the fake's billed wait through each pickup and flight is not the system's. Its requests on the fleet queue (receive, delete) and its FlightProgress messages into the delivery queue stay counted: the drones' side of the contract, billed to the queues' owner. ${
      scope.scheduledRateSeconds.size > 0
        ? `Scheduled functions (${[...scope.scheduledRateSeconds.keys()].join(', ')}) are fixed cost, left out.`
        : 'The stack has no scheduled function: no fixed cost by the clock.'
    } Left out as in order-cost: empty receives (long polls of idle queues) and alarm notifications.`,
    `Per delivery: ${round(counts.transitions ?? 0, 2)} state transitions (the choreography has no orchestrator), ${round(counts.lambdaInvocations ?? 0, 2)} Lambda invocations (${round(counts.lambdaGbSeconds ?? 0, 4)} GB-s at ${memorySizes.join(', ')} MB, local durations), ${round(counts.sqsRequests ?? 0, 2)} SQS requests as billed (64 KB chunks; FIFO and standard queues at their own prices), by queue: ${describeQueues(delivered)}; ${round(counts.snsPublishes ?? 0, 2)} SNS publishes (the requests topic is FIFO: publishes, payload by the GB and each delivery to a subscribed FIFO queue priced as AWS prices FIFO topics), ${round(counts.eventBridgeEvents ?? 0, 2)} EventBridge events, ${round(counts.apiGatewayRequests ?? 0, 2)} API Gateway requests.`,
    `DynamoDB request units per delivery by table (read / write): ${describeTables(delivered)}. Each service commits its state and its change-log entry in one transaction (twice the units of a plain write), and every table's stream feeds its outbox relay (stream reads by Lambda are free).`,
    `Prices: us-east-1 list prices recorded on ${RECORDED_ON} in lib/bench/prices/us-east-1.ts; ${unconfirmed.length} of them (SNS FIFO: ${unconfirmed.map((price) => price.unit).join('; ')}) recorded later and not confirmed on the pricing page. Not counted: the payload by the GB of FIFO topic deliveries ($0.001 per GB), CloudWatch Logs, X-Ray, KMS (the ingestion table's customer-managed key), the schema registry, data transfer, and the requester's own reads of its delivery.`,
    ...(measured.quick
      ? [
          'Quick run: one delivery on cold sandboxes (init billed in the duration): it proves the figure runs, not the target.',
        ]
      : []),
  ];
  return {
    id: 'delivery-cost',
    title: deliveryCostFigure.title,
    measurements,
    targets: [
      checkTarget(
        `cost per 1,000 Delivered deliveries <= ${usd(DELIVERY_COST_TARGET_USD)} (us-east-1 list prices)`,
        round(cost.total, 4),
        'atMost',
        DELIVERY_COST_TARGET_USD,
      ),
    ],
    notes,
    charts: [chart],
    batches: { delivered: { unit: DELIVERY_NOUN.singular, units: delivered.units, work: delivered.work } },
  };
}

const run: Figure['run'] = async (context) => {
  const sizes = context.quick ? QUICK : FULL;
  const { app, scope, tracker } = await startCostRun(
    context,
    DELIVERY_STACK,
    deliveriesApp,
    sizes.droneEach ? { [DRONE_FLEET_SIZE]: String(sizes.warmUp + sizes.delivered) } : {},
  );
  const { runtime } = app;
  const batchOf = (label: string, count: number) =>
    Array.from({ length: count }, (_, index) => deliveryOf(`cost-${label}-${index + 1}-${Date.now()}`));
  try {
    if (sizes.warmUp > 0) {
      context.progress(`warm-up: ${sizes.warmUp} deliveries, ${CONCURRENCY} at a time`);
      await runBatch(app, tracker, scope, batchOf('warm', sizes.warmUp), CONCURRENCY);
    }
    context.progress(`${sizes.delivered} deliveries, ${CONCURRENCY} at a time`);
    const delivered = await runBatch(app, tracker, scope, batchOf('delivered', sizes.delivered), CONCURRENCY);
    if ((delivered.outcomes[DeliveryStatus.Delivered] ?? 0) !== delivered.units) {
      throw new Error(
        `not every delivery was Delivered (${describeOutcomes(delivered)}): the batch is no Delivered delivery's cost`,
      );
    }
    return describe({ quick: context.quick, sizes, scope, delivered });
  } finally {
    tracker.close();
    await runtime.stop();
  }
};

export const deliveryCostFigure: Figure = {
  id: 'delivery-cost',
  title: 'Cost per 1,000 deliveries',
  run,
};
