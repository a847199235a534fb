import { Duration } from 'aws-cdk-lib';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as eventSources from 'aws-cdk-lib/aws-lambda-event-sources';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import {
  createSecureQueue,
  createTerminalQueue,
  DEAD_LETTER_RETENTION,
  maxConcurrencyProblem,
  VISIBILITY_TO_TIMEOUT_RATIO,
} from './work-queue';

/** Largest batch a Lambda SQS event source takes from a FIFO queue (no batching window). */
const MAX_FIFO_BATCH_SIZE = 10;
/** SQS bounds on redrive maxReceiveCount that this application accepts (small: retries are budgeted). */
const MAX_RECEIVE_COUNT = 10;

/** How a function consumes a FIFO queue. */
export interface FifoConsumerOptions {
  /** Messages per invocation, 1-10. */
  readonly batchSize: number;
  /** Most concurrent invocations the event source starts, 2-1000 (the storm guard). */
  readonly maxConcurrency: number;
}

/**
 * Makes `consumer` a consumer of `queue`: batches of `batchSize`, partial batch failures reported
 * (ReportBatchItemFailures), at most `maxConcurrency` concurrent invocations.
 */
export function consumeFifoQueue(
  where: string,
  queue: sqs.IQueue,
  consumer: lambda.IFunction,
  options: FifoConsumerOptions,
): void {
  const { batchSize, maxConcurrency } = options;
  const problems: string[] = [];
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > MAX_FIFO_BATCH_SIZE) {
    problems.push(`batchSize must be an integer from 1 to ${MAX_FIFO_BATCH_SIZE}, got ${batchSize}`);
  }
  const concurrencyProblem = maxConcurrencyProblem(maxConcurrency);
  if (concurrencyProblem !== undefined) problems.push(concurrencyProblem);
  if (problems.length > 0) throw new Error(`${where}: ${problems.join('; ')}`);
  consumer.addEventSource(
    new eventSources.SqsEventSource(queue, { batchSize, maxConcurrency, reportBatchItemFailures: true }),
  );
}

/** Where a FIFO work queue's dead letters go next, when something consumes the dead-letter queue. */
export interface DeadLetterConsumption {
  /** Timeout of the function that consumes the dead-letter queue (sets its visibility timeout). */
  readonly consumerTimeout: Duration;
  /** The dead-letter queue's own redrive: a FIFO queue, and receives before it moves there. */
  readonly redrive: sqs.DeadLetterQueue;
}

export interface FifoWorkQueueProps {
  /**
   * Timeout of the function that consumes the queue: the visibility timeout is
   * VISIBILITY_TO_TIMEOUT_RATIO times it (checked again at synth by lib/platform/guardrails).
   */
  readonly consumerTimeout: Duration;
  /** Receives before a message moves to the dead-letter queue (1-10). */
  readonly maxReceiveCount: number;
  /** @default Duration.days(4) */
  readonly retentionPeriod?: Duration;
  /**
   * The body's SHA-256 is the deduplication id when a sender gives none: required for EventBridge
   * targets, which set no MessageDeduplicationId. @default false (senders set ids)
   */
  readonly contentBasedDeduplication?: boolean;
  /**
   * The dead-letter queue is itself consumed (e.g. by a remediation function) and redriven.
   * @default - the dead-letter queue is terminal: an operator reads it, nothing consumes it
   */
  readonly deadLetterConsumption?: DeadLetterConsumption;
}

/**
 * A FIFO work queue and its FIFO dead-letter queue (SSE-SQS, TLS only), consumed by one function
 * through `consumeWith`. Order holds per message group; a message failing maxReceiveCount times
 * moves to the dead-letter queue, which is terminal or, when consumed, redriven in its turn.
 */
export class FifoWorkQueue extends Construct {
  readonly queue: sqs.Queue;
  readonly deadLetterQueue: sqs.Queue;

  constructor(scope: Construct, id: string, props: FifoWorkQueueProps) {
    super(scope, id);
    const problems: string[] = [];
    const receives: [string, number][] = [['maxReceiveCount', props.maxReceiveCount]];
    if (props.deadLetterConsumption) {
      receives.push([
        'deadLetterConsumption.redrive.maxReceiveCount',
        props.deadLetterConsumption.redrive.maxReceiveCount,
      ]);
    }
    for (const [name, count] of receives) {
      if (!Number.isInteger(count) || count < 1 || count > MAX_RECEIVE_COUNT) {
        problems.push(`${name} must be an integer from 1 to ${MAX_RECEIVE_COUNT}, got ${count}`);
      }
    }
    if (props.deadLetterConsumption && props.deadLetterConsumption.redrive.queue.fifo !== true) {
      problems.push('deadLetterConsumption.redrive.queue must be a FIFO queue');
    }
    if (problems.length > 0) throw new Error(`FifoWorkQueue ${this.node.path}: ${problems.join('; ')}`);

    const visibilityOf = (timeout: Duration) =>
      Duration.seconds(timeout.toSeconds() * VISIBILITY_TO_TIMEOUT_RATIO);
    const consumed = props.deadLetterConsumption;
    this.deadLetterQueue = consumed
      ? createSecureQueue(this, 'DeadLetterQueue', {
          fifo: true,
          retentionPeriod: DEAD_LETTER_RETENTION,
          visibilityTimeout: visibilityOf(consumed.consumerTimeout),
          deadLetterQueue: consumed.redrive,
        })
      : createTerminalQueue(
          this,
          'DeadLetterQueue',
          'This is the dead-letter queue of the FIFO work queue next to it.',
          { fifo: true },
        );
    this.queue = createSecureQueue(this, 'Queue', {
      fifo: true,
      contentBasedDeduplication: props.contentBasedDeduplication ?? false,
      visibilityTimeout: visibilityOf(props.consumerTimeout),
      retentionPeriod: props.retentionPeriod,
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: props.maxReceiveCount },
    });
  }

  /** Makes `consumer` the queue's consumer (see consumeFifoQueue). */
  consumeWith(consumer: lambda.IFunction, options: FifoConsumerOptions): void {
    consumeFifoQueue(`FifoWorkQueue ${this.node.path}`, this.queue, consumer, options);
  }
}
