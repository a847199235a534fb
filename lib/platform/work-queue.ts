import { Duration, Validations } from 'aws-cdk-lib';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as eventSources from 'aws-cdk-lib/aws-lambda-event-sources';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { DataSettings } from './data-settings';

/**
 * AWS guidance for queues consumed by Lambda: a visibility timeout of at least six times the
 * function timeout, so a message is not redelivered while a throttled or retried batch still
 * holds it. Enforced at synth time by lib/platform/guardrails.
 */
export const VISIBILITY_TO_TIMEOUT_RATIO = 6;

/** Longest retention SQS allows: dead letters wait for an operator, not for a timer. */
export const DEAD_LETTER_RETENTION = Duration.days(14);

export interface SecureQueueProps {
  /** @default Duration.seconds(30) */
  readonly visibilityTimeout?: Duration;
  /** @default Duration.days(4) */
  readonly retentionPeriod?: Duration;
  /** @default - no dead-letter queue */
  readonly deadLetterQueue?: sqs.DeadLetterQueue;
  /** A FIFO queue (its dead-letter queue must be FIFO too). @default false */
  readonly fifo?: boolean;
  /**
   * FIFO only: the body's SHA-256 is the deduplication id when a sender gives none (EventBridge
   * targets give none). @default false
   */
  readonly contentBasedDeduplication?: boolean;
}

/** An SQS queue with the application's defaults: SSE-SQS encryption and TLS-only access. */
export function createSecureQueue(scope: Construct, id: string, props: SecureQueueProps): sqs.Queue {
  return new sqs.Queue(scope, id, {
    encryption: sqs.QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    visibilityTimeout: props.visibilityTimeout,
    retentionPeriod: props.retentionPeriod,
    deadLetterQueue: props.deadLetterQueue,
    ...(props.fifo && { fifo: true, contentBasedDeduplication: props.contentBasedDeduplication ?? false }),
    removalPolicy: DataSettings.of(scope).removalPolicy,
  });
}

/**
 * A queue that is itself a final destination (dead letters, operator inboxes): long retention,
 * and acknowledged as having no dead-letter queue of its own.
 */
export function createTerminalQueue(
  scope: Construct,
  id: string,
  why: string,
  options: Pick<SecureQueueProps, 'fifo'> = {},
): sqs.Queue {
  const queue = createSecureQueue(scope, id, {
    retentionPeriod: DEAD_LETTER_RETENTION,
    ...options,
  });
  Validations.of(queue).acknowledge({ id: 'AwsSolutions-SQS3', reason: why });
  return queue;
}

export interface WorkQueueProps {
  /**
   * Timeout of the function that consumes the queue: the visibility timeout is
   * VISIBILITY_TO_TIMEOUT_RATIO times it (checked again at synth by lib/platform/guardrails).
   */
  readonly consumerTimeout: Duration;
  /** Receives before a message moves to the dead-letter queue. Small: retries are budgeted elsewhere. */
  readonly maxReceiveCount: number;
}

/** Largest batch a Lambda SQS event source takes without a batching window. */
const MAX_BATCH_SIZE = 10;
/** Lambda's bounds on an SQS event source's maximum concurrency. */
const MIN_MAX_CONCURRENCY = 2;
const MAX_MAX_CONCURRENCY = 1000;

/** What is wrong with an SQS event source's maximum concurrency, or undefined (Lambda's bounds). */
export function maxConcurrencyProblem(maxConcurrency: number): string | undefined {
  return Number.isInteger(maxConcurrency) &&
    maxConcurrency >= MIN_MAX_CONCURRENCY &&
    maxConcurrency <= MAX_MAX_CONCURRENCY
    ? undefined
    : `maxConcurrency must be an integer from ${MIN_MAX_CONCURRENCY} to ${MAX_MAX_CONCURRENCY}, got ${maxConcurrency}`;
}

/** A work queue and its dead-letter queue, consumed by one function in batches. */
export class WorkQueue extends Construct {
  readonly queue: sqs.Queue;
  readonly deadLetterQueue: sqs.Queue;

  constructor(scope: Construct, id: string, props: WorkQueueProps) {
    super(scope, id);
    if (!Number.isInteger(props.maxReceiveCount) || props.maxReceiveCount < 1 || props.maxReceiveCount > 10) {
      throw new Error(
        `WorkQueue ${this.node.path}: maxReceiveCount must be an integer from 1 to 10, got ${props.maxReceiveCount}`,
      );
    }
    this.deadLetterQueue = createTerminalQueue(
      this,
      'DeadLetterQueue',
      'This is the dead-letter queue of the work queue next to it.',
    );
    this.queue = createSecureQueue(this, 'Queue', {
      visibilityTimeout: Duration.seconds(props.consumerTimeout.toSeconds() * VISIBILITY_TO_TIMEOUT_RATIO),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: props.maxReceiveCount },
    });
  }

  /**
   * Makes `consumer` the queue's consumer: batches of `batchSize` messages, each failed message
   * reported on its own (partial batch failures) so one bad message never redelivers the batch,
   * and at most `options.maxConcurrency` invocations at once when given (MaximumConcurrency, 2 to
   * 1000; without it, the function's own concurrency is the only bound).
   */
  consumeWith(
    consumer: lambda.IFunction,
    batchSize: number,
    options: { readonly maxConcurrency?: number } = {},
  ): void {
    if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > MAX_BATCH_SIZE) {
      throw new Error(
        `WorkQueue ${this.node.path}: batchSize must be an integer from 1 to ${MAX_BATCH_SIZE}, got ${batchSize}`,
      );
    }
    const { maxConcurrency } = options;
    const concurrencyProblem =
      maxConcurrency === undefined ? undefined : maxConcurrencyProblem(maxConcurrency);
    if (concurrencyProblem !== undefined)
      throw new Error(`WorkQueue ${this.node.path}: ${concurrencyProblem}`);
    consumer.addEventSource(
      new eventSources.SqsEventSource(this.queue, {
        batchSize,
        reportBatchItemFailures: true,
        maxConcurrency,
      }),
    );
  }
}
