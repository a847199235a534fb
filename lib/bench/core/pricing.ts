/**
 * Prices what the local runtime metered (RuntimeUsage) with a list price table: one cost item per
 * billed unit, grouped by service. Linear, so the price of a batch divided by its size is the price
 * of one of its orders. Lambda duration is priced as arm64 (the callers check the template says so).
 * FIFO topics are priced as AWS prices them: publishes (64 KB chunks), their payload by the GB, and
 * each message delivered to a subscribed FIFO queue.
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
  snsFifoPublish: ['SNS', 'FIFO topic publishes'],
  snsFifoPublishPayloadGb: ['SNS', 'GB published to FIFO topics'],
  snsFifoSubscriptionMessage: ['SNS', 'FIFO topic deliveries to queues'],
};

/** Bytes in a GB as AWS bills data (2^30). */
const BYTES_PER_GB = 1024 ** 3;

/** Whether a delivery into a queue was SNS's (a subscription message), whatever caused the publish. */
const isSnsDelivery = (deliveredBy: string) => deliveredBy === 'SNS' || deliveredBy.startsWith('SNS <- ');

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
    snsStandardPublish: total(usage.topics, (topic, name) => (isFifo(name) ? 0 : topic.billedRequests)),
    snsFifoPublish: total(usage.topics, (topic, name) => (isFifo(name) ? topic.billedRequests : 0)),
    snsFifoPublishPayloadGb:
      total(usage.topics, (topic, name) => (isFifo(name) ? topic.payloadBytes : 0)) / BYTES_PER_GB,
    // A FIFO topic delivers only to FIFO queues.
    snsFifoSubscriptionMessage: total(usage.queues, (queue, name) =>
      isFifo(name)
        ? total(queue.deliveriesBy, (billed, who) => (isSnsDelivery(who) ? billed.requests : 0))
        : 0,
    ),
  };
}

export function priceUsage(usage: RuntimeUsage, prices: PriceTable): CostItem[] {
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
