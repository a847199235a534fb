/**
 * Prices what the local runtime metered (RuntimeUsage) with a list price table: one cost item per
 * billed unit, grouped by service. Linear, so the price of a batch divided by its size is the price
 * of one of its orders. Lambda duration is priced as arm64 (the callers check the template says so).
 */
import { gbSeconds, type RuntimeUsage } from '../../local-runtime';
import type { PriceTable } from '../prices/us-east-1';

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

/** The service and the words of each priced unit, in the order they are listed. */
const PRICED_UNITS: Readonly<Record<keyof PriceTable, readonly [BilledService, string]>> = {
  stepFunctionsStandardTransition: ['Step Functions', 'state transitions'],
  lambdaRequest: ['Lambda', 'requests'],
  lambdaArm64GbSecond: ['Lambda', 'GB-seconds'],
  sqsStandardRequest: ['SQS', 'standard queue requests'],
  sqsFifoRequest: ['SQS', 'FIFO queue requests'],
  dynamoDbReadRequestUnit: ['DynamoDB', 'read request units'],
  dynamoDbWriteRequestUnit: ['DynamoDB', 'write request units'],
  apiGatewayRestRequest: ['API Gateway', 'REST requests'],
  eventBridgeCustomEvent: ['EventBridge', 'custom events'],
  snsStandardPublish: ['SNS', 'publishes'],
};

/** How many of each priced unit a usage holds. */
function quantities(usage: RuntimeUsage): Record<keyof PriceTable, number> {
  const queueRequests = (fifo: boolean) =>
    total(usage.queues, (queue, name) => (isFifo(name) === fifo ? queue.billedRequests : 0));
  return {
    stepFunctionsStandardTransition: total(usage.stateMachines, (machine) => machine.transitions),
    lambdaRequest: total(usage.functions, (fn) => fn.invocations),
    lambdaArm64GbSecond: total(usage.functions, gbSeconds),
    sqsStandardRequest: queueRequests(false),
    sqsFifoRequest: queueRequests(true),
    dynamoDbReadRequestUnit: total(usage.tables, (table) => table.readUnits),
    dynamoDbWriteRequestUnit: total(usage.tables, (table) => table.writeUnits),
    apiGatewayRestRequest: total(usage.apis, (api) => api.requests),
    eventBridgeCustomEvent: total(usage.buses, (bus) => bus.billedEvents),
    snsStandardPublish: total(usage.topics, (topic) => topic.billedRequests),
  };
}

export function priceUsage(usage: RuntimeUsage, prices: PriceTable): CostItem[] {
  const fifoTopics = Object.keys(usage.topics).filter(
    (name) => isFifo(name) && usage.topics[name]?.publishes,
  );
  if (fifoTopics.length > 0) {
    throw new Error(`FIFO topics are not in the price table (published to: ${fifoTopics.join(', ')})`);
  }
  const counted = quantities(usage);
  return Object.entries(PRICED_UNITS).map(([unit, [service, item]]) => {
    const quantity = counted[unit as keyof PriceTable];
    return { service, item, quantity, usd: quantity * prices[unit as keyof PriceTable].usd };
  });
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
