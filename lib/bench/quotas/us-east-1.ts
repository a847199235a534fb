/**
 * AWS quotas in us-east-1 that bound how many orders and deliveries a deployment takes per second,
 * one entry per quota the capacity model (lib/bench/core/capacity-model.ts) applies, each with the
 * AWS page that states it, the words quoted from it and the day it was read. Like the price table
 * (../prices/us-east-1.ts) they are not fetched at run time and AWS changes them; an entry with
 * `unconfirmed` could not be read on an AWS page when it was written down: check it before relying
 * on what the model says of it.
 */

export interface QuotaEntry {
  /** The quota, per `per`. */
  readonly value: number;
  /** What is counted, e.g. `StartExecution calls per second (refill rate)`. */
  readonly unit: string;
  /** What it applies to: `account and Region`, `queue and API action`, `partition`, ... */
  readonly per: string;
  /** The AWS documentation page that states it (the one that was read, translation or not). */
  readonly source: string;
  /** The day the page was read through the tool, or absent when it was not (see unconfirmed). */
  readonly readOn?: string;
  /** The page's words, as read. */
  readonly quote?: string;
  /** Why the value is not confirmed from a page read on readOn. @default - confirmed */
  readonly unconfirmed?: string;
  /** Whether AWS raises it on request (Service Quotas or Support). */
  readonly adjustable: boolean;
}

/** The day the confirmed entries below were read. */
export const QUOTAS_READ_ON = '2026-12-05';

const STEP_FUNCTIONS_PAGE = 'https://docs.aws.amazon.com/step-functions/latest/dg/service-quotas.html';
const STEP_FUNCTIONS_UNCONFIRMED =
  "the page was found (its token-bucket section) but its table of Regions' bucket sizes and refill rates was not in the copy read: the value is the us-east-1 default as AWS documented it for Standard workflows, to check on the page";

export const US_EAST_1_QUOTAS = {
  stepFunctionsStartExecution: {
    value: 300,
    unit: 'StartExecution calls per second (token bucket refill rate; bucket 1,300)',
    per: 'account and Region, all Standard state machines',
    source: STEP_FUNCTIONS_PAGE,
    unconfirmed: STEP_FUNCTIONS_UNCONFIRMED,
    adjustable: true,
  },
  stepFunctionsStateTransition: {
    value: 5_000,
    unit: 'state transitions per second (token bucket refill rate; bucket 5,000)',
    per: 'account and Region, all Standard state machines',
    source: STEP_FUNCTIONS_PAGE,
    unconfirmed: STEP_FUNCTIONS_UNCONFIRMED,
    adjustable: true,
  },
  sqsFifoPerAction: {
    value: 300,
    unit: 'calls per second of one API action (a batch call carries up to 10 messages)',
    per: 'FIFO queue and API action (SendMessage, ReceiveMessage, DeleteMessage), high throughput off',
    source:
      'https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/troubleshooting-fifo-throttling-issues.html',
    readOn: QUOTAS_READ_ON,
    quote:
      'By default, FIFO queues support 300 transactions per second, per API action for SendMessage, ReceiveMessage, and DeleteMessage.',
    adjustable: false,
  },
  sqsFifoHighThroughputPerAction: {
    value: 70_000,
    unit: 'calls per second of one API action',
    per: 'FIFO queue and API action, high throughput on (DeduplicationScope messageGroup, FifoThroughputLimit perMessageGroupId)',
    source: 'https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/quotas-messages.html',
    unconfirmed:
      'the page was read on 2026-12-05 but the copy ended before its table of high-throughput limits by Region: the us-east-1 value as AWS documented it, to check (no queue of ours enables high throughput, so the model does not use it today)',
    adjustable: false,
  },
  messageGroupInOrder: {
    value: 1,
    unit: 'batch in flight at a time (messages of one group are handed out in order, one batch after the other)',
    per: 'message group of a FIFO queue',
    source: 'https://docs.aws.amazon.com/sns/latest/dg/fifo-message-grouping.html',
    readOn: QUOTAS_READ_ON,
    quote:
      'Messages that belong to the same group are processed one by one, in a strict order relative to the group.',
    adjustable: false,
  },
  snsFifoTopic: {
    value: 3_000,
    unit: 'messages per second (and 20 MB per second)',
    per: 'FIFO topic with FifoThroughputScope Topic (the default)',
    source: 'https://docs.aws.amazon.com/cdk/api/v2/docs/aws-cdk-lib.aws_sns.FifoThroughputScope.html',
    readOn: QUOTAS_READ_ON,
    quote: 'Topic scope - Throughput: 3000 messages per second and a bandwidth of 20MB per second.',
    unconfirmed:
      "read on the CDK reference, not the SNS quotas page; the SNS features page (aws.amazon.com/sns/features, read 2026-12-05) still says 'up to 300 messages per second or 10 MB per second per FIFO topic'",
    adjustable: false,
  },
  eventBridgePutEvents: {
    value: 10_000,
    unit: 'PutEvents requests per second (each up to 10 entries)',
    per: 'account and Region',
    source: 'https://docs.amazonaws.cn/eventbridge/latest/userguide/eb-quota.html',
    readOn: QUOTAS_READ_ON,
    quote:
      'PutEvents 每秒交易次数的节流限制 us-east-1:每秒 10000 个 (the English page, docs.aws.amazon.com/eventbridge/latest/userguide/eb-quota.html, was found but its copy ended before this row)',
    adjustable: true,
  },
  eventBridgeInvocations: {
    value: 18_750,
    unit: 'invocations per second (an event matched by a rule and sent to its target)',
    per: 'account and Region',
    source: 'https://docs.amazonaws.cn/eventbridge/latest/userguide/eb-quota.html',
    readOn: QUOTAS_READ_ON,
    quote: '调用每秒事务数节流限制 us-east-1:每秒 18750 个',
    adjustable: true,
  },
  dynamoDbPartitionWrite: {
    value: 1_000,
    unit: 'write units per second',
    per: 'partition of a table or index (one item never spans partitions)',
    source:
      'https://docs.aws.amazon.com/es_es/amazondynamodb/latest/developerguide/warm-throughput-scenarios.html',
    readOn: QUOTAS_READ_ON,
    quote:
      'cada partición individual está limitada a 1000 unidades de escritura por segundo y 3000 unidades de lectura por segundo (the Spanish translation of the page was the copy read)',
    adjustable: false,
  },
  dynamoDbPartitionRead: {
    value: 3_000,
    unit: 'read units per second',
    per: 'partition of a table or index',
    source:
      'https://docs.aws.amazon.com/es_es/amazondynamodb/latest/developerguide/warm-throughput-scenarios.html',
    readOn: QUOTAS_READ_ON,
    quote:
      'cada partición individual está limitada a 1000 unidades de escritura por segundo y 3000 unidades de lectura por segundo',
    adjustable: false,
  },
  lambdaConcurrency: {
    value: 1_000,
    unit: 'concurrent executions',
    per: 'account and Region, all functions',
    source: 'https://docs.aws.amazon.com/lambda/latest/dg/limits.html',
    readOn: QUOTAS_READ_ON,
    quote: 'Concurrent executions | 1,000 | Tens of thousands',
    adjustable: true,
  },
  lambdaScalingRate: {
    value: 1_000,
    unit: 'execution environments added every 10 seconds',
    per: 'function',
    source: 'https://docs.aws.amazon.com/lambda/latest/dg/scaling-behavior.html',
    readOn: QUOTAS_READ_ON,
    quote:
      'In each AWS Region, and for each function, your concurrency scaling rate is 1,000 execution environment instances every 10 seconds',
    adjustable: false,
  },
  apiGatewayAccount: {
    value: 10_000,
    unit: 'requests per second (token bucket of 5,000)',
    per: 'account and Region, all APIs',
    source: 'https://docs.aws.amazon.com/apigateway/latest/developerguide/limits.html',
    readOn: QUOTAS_READ_ON,
    quote:
      'Throttle quota per account, per Region across HTTP APIs, REST APIs, WebSocket APIs, and WebSocket callback APIs | 10,000 requests per second (RPS)',
    adjustable: true,
  },
} as const satisfies Record<string, QuotaEntry>;

export type QuotaTable = Readonly<Record<keyof typeof US_EAST_1_QUOTAS, QuotaEntry>>;
