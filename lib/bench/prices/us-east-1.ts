/**
 * AWS list prices in us-east-1 (USD, on-demand, no free tier, the first volume tier), one entry per
 * billed unit the benchmarks count, each with the pricing page it comes from. Recorded on
 * RECORDED_ON from those pages as their author knew them; they are not fetched at run time (the
 * benchmarks run offline) and AWS changes them: check the pages before relying on a total.
 */

/** The day the prices below were written down. */
export const RECORDED_ON = '2026-12-01';

export interface ListPrice {
  /** USD per one `unit`. */
  readonly usd: number;
  readonly unit: string;
  /** The AWS pricing page that states it. */
  readonly source: string;
  /** The day it was written down, when not RECORDED_ON. @default RECORDED_ON */
  readonly recordedOn?: string;
  /** What of it could not be checked against the page when it was written down. @default - nothing */
  readonly unconfirmed?: string;
}

/** FIFO topic prices: no copy of the SNS pricing page could be read when they were written down. */
const SNS_FIFO_UNCONFIRMED =
  'not read on the pricing page on 2026-12-05 (no copy of it was at hand): the price as AWS lists it for FIFO topics, to check there';

export const US_EAST_1_PRICES = {
  stepFunctionsStandardTransition: {
    usd: 0.025 / 1_000,
    unit: 'state transition (Standard workflow)',
    source: 'https://aws.amazon.com/step-functions/pricing/',
  },
  lambdaRequest: {
    usd: 0.2 / 1_000_000,
    unit: 'Lambda request',
    source: 'https://aws.amazon.com/lambda/pricing/',
  },
  lambdaArm64GbSecond: {
    usd: 0.0000133334,
    unit: 'GB-second of Lambda duration, arm64 (first 7.5 billion GB-s a month)',
    source: 'https://aws.amazon.com/lambda/pricing/',
  },
  sqsStandardRequest: {
    usd: 0.4 / 1_000_000,
    unit: 'SQS request to a standard queue (each 64 KB chunk of payload)',
    source: 'https://aws.amazon.com/sqs/pricing/',
  },
  sqsFifoRequest: {
    usd: 0.5 / 1_000_000,
    unit: 'SQS request to a FIFO queue (each 64 KB chunk of payload)',
    source: 'https://aws.amazon.com/sqs/pricing/',
  },
  dynamoDbReadRequestUnit: {
    usd: 0.125 / 1_000_000,
    unit: 'DynamoDB read request unit (on-demand, Standard table class)',
    source: 'https://aws.amazon.com/dynamodb/pricing/on-demand/',
  },
  dynamoDbWriteRequestUnit: {
    usd: 0.625 / 1_000_000,
    unit: 'DynamoDB write request unit (on-demand, Standard table class)',
    source: 'https://aws.amazon.com/dynamodb/pricing/on-demand/',
  },
  apiGatewayRestRequest: {
    usd: 3.5 / 1_000_000,
    unit: 'API Gateway REST API request (first 333 million a month)',
    source: 'https://aws.amazon.com/api-gateway/pricing/',
  },
  eventBridgeCustomEvent: {
    usd: 1 / 1_000_000,
    unit: 'EventBridge custom event published (each 64 KB chunk)',
    source: 'https://aws.amazon.com/eventbridge/pricing/',
  },
  snsStandardPublish: {
    usd: 0.5 / 1_000_000,
    unit: 'SNS standard topic publish request (each 64 KB chunk)',
    source: 'https://aws.amazon.com/sns/pricing/',
  },
  snsFifoPublish: {
    usd: 0.3 / 1_000_000,
    unit: 'SNS FIFO topic publish request (Publish or a PublishBatch entry, each 64 KB chunk)',
    source: 'https://aws.amazon.com/sns/pricing/',
    recordedOn: '2026-12-05',
    unconfirmed: SNS_FIFO_UNCONFIRMED,
  },
  snsFifoPublishPayloadGb: {
    usd: 0.017,
    unit: 'GB of payload published to an SNS FIFO topic',
    source: 'https://aws.amazon.com/sns/pricing/',
    recordedOn: '2026-12-05',
    unconfirmed: SNS_FIFO_UNCONFIRMED,
  },
  snsFifoSubscriptionMessage: {
    usd: 0.01 / 1_000_000,
    unit: 'SNS FIFO topic subscription message (a delivery to a subscribed SQS FIFO queue)',
    source: 'https://aws.amazon.com/sns/pricing/',
    recordedOn: '2026-12-05',
    unconfirmed: SNS_FIFO_UNCONFIRMED,
  },
} as const satisfies Record<string, ListPrice>;

export type PriceTable = Readonly<Record<keyof typeof US_EAST_1_PRICES, ListPrice>>;
