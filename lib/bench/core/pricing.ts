/**
 * Prices what the local runtime metered (RuntimeUsage) with a list price table: one cost item per
 * billed unit, grouped by service. Linear, so the price of a batch divided by its size is the price
 * of one of its orders. Lambda duration is priced as arm64 (the callers check the template says so).
 */
import { gbSeconds, type RuntimeUsage } from '../../local-runtime';
import type { ListPrice, PriceTable } from '../prices/us-east-1';

/** The services of a cost split, in the order they are printed and charted. */
export const BILLED_SERVICES = [
  'Step Functions',
  'Lambda',
  'SQS',
  'DynamoDB',
  'API Gateway',
  'EventBridge',
  'SNS',
] as const;
export type BilledService = (typeof BILLED_SERVICES)[number];

export interface CostItem {
  readonly service: BilledService;
  /** What is counted, e.g. `state transitions`, `write request units`. */
  readonly item: string;
  readonly quantity: number;
  readonly usd: number;
}

const isFifo = (name: string) => name.endsWith('.fifo');

function total<T>(record: Readonly<Record<string, T>>, of: (value: T, name: string) => number): number {
  return Object.entries(record).reduce((sum, [name, value]) => sum + of(value, name), 0);
}

export function priceUsage(usage: RuntimeUsage, prices: PriceTable): CostItem[] {
  const fifoTopics = Object.keys(usage.topics).filter(
    (name) => isFifo(name) && usage.topics[name]?.publishes,
  );
  if (fifoTopics.length > 0) {
    throw new Error(`FIFO topics are not in the price table (published to: ${fifoTopics.join(', ')})`);
  }
  const item = (service: BilledService, what: string, quantity: number, price: ListPrice): CostItem => ({
    service,
    item: what,
    quantity,
    usd: quantity * price.usd,
  });
  return [
    item(
      'Step Functions',
      'state transitions',
      total(usage.stateMachines, (machine) => machine.transitions),
      prices.stepFunctionsStandardTransition,
    ),
    item(
      'Lambda',
      'requests',
      total(usage.functions, (fn) => fn.invocations),
      prices.lambdaRequest,
    ),
    item('Lambda', 'GB-seconds', total(usage.functions, gbSeconds), prices.lambdaArm64GbSecond),
    item(
      'SQS',
      'standard queue requests',
      total(usage.queues, (queue, name) => (isFifo(name) ? 0 : queue.billedRequests)),
      prices.sqsStandardRequest,
    ),
    item(
      'SQS',
      'FIFO queue requests',
      total(usage.queues, (queue, name) => (isFifo(name) ? queue.billedRequests : 0)),
      prices.sqsFifoRequest,
    ),
    item(
      'DynamoDB',
      'read request units',
      total(usage.tables, (table) => table.readUnits),
      prices.dynamoDbReadRequestUnit,
    ),
    item(
      'DynamoDB',
      'write request units',
      total(usage.tables, (table) => table.writeUnits),
      prices.dynamoDbWriteRequestUnit,
    ),
    item(
      'API Gateway',
      'REST requests',
      total(usage.apis, (api) => api.requests),
      prices.apiGatewayRestRequest,
    ),
    item(
      'EventBridge',
      'custom events',
      total(usage.buses, (bus) => bus.billedEvents),
      prices.eventBridgeCustomEvent,
    ),
    item(
      'SNS',
      'publishes',
      total(usage.topics, (topic) => topic.billedRequests),
      prices.snsStandardPublish,
    ),
  ];
}

/** USD per service (every service present, 0 when unused). */
export function costByService(items: readonly CostItem[]): Record<BilledService, number> {
  const byService = Object.fromEntries(BILLED_SERVICES.map((service) => [service, 0])) as Record<
    BilledService,
    number
  >;
  for (const { service, usd } of items) byService[service] += usd;
  return byService;
}

export function totalUsd(items: readonly CostItem[]): number {
  return items.reduce((sum, { usd }) => sum + usd, 0);
}
