import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

/**
 * AWS guidance for queues consumed by Lambda: a visibility timeout of at least six times the
 * function timeout, so a message is not redelivered while a throttled or retried batch still
 * holds it. Enforced at synth time by lib/platform/guardrails.
 */
export const VISIBILITY_TO_TIMEOUT_RATIO = 6;

/** Longest retention SQS allows: dead letters wait for an operator, not for a timer. */
const DEAD_LETTER_RETENTION = Duration.days(14);

export interface SecureQueueProps {
  /** Whether the queue (and its messages) survives stack deletion. */
  readonly retainData: boolean;
  /** @default Duration.seconds(30) */
  readonly visibilityTimeout?: Duration;
  /** @default Duration.days(4) */
  readonly retentionPeriod?: Duration;
  /** @default - no dead-letter queue */
  readonly deadLetterQueue?: sqs.DeadLetterQueue;
}

/** An SQS queue with the application's defaults: SSE-SQS encryption and TLS-only access. */
export function createSecureQueue(scope: Construct, id: string, props: SecureQueueProps): sqs.Queue {
  return new sqs.Queue(scope, id, {
    encryption: sqs.QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    visibilityTimeout: props.visibilityTimeout,
    retentionPeriod: props.retentionPeriod,
    deadLetterQueue: props.deadLetterQueue,
    removalPolicy: props.retainData ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
  });
}

/**
 * A queue that is itself a final destination (dead letters, operator inboxes): long retention,
 * and acknowledged as having no dead-letter queue of its own.
 */
export function createTerminalQueue(
  scope: Construct,
  id: string,
  retainData: boolean,
  why: string,
): sqs.Queue {
  const queue = createSecureQueue(scope, id, { retainData, retentionPeriod: DEAD_LETTER_RETENTION });
  Validations.of(queue).acknowledge({ id: 'AwsSolutions-SQS3', reason: why });
  return queue;
}

export interface WorkQueueProps {
  /** Whether the queues survive stack deletion. */
  readonly retainData: boolean;
  /** Visibility timeout of the work queue (at least 6x its consumer's timeout; see guardrails). */
  readonly visibilityTimeout: Duration;
  /** Receives before a message moves to the dead-letter queue. Small: retries are budgeted elsewhere. */
  readonly maxReceiveCount: number;
}

/** A work queue and its dead-letter queue. */
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
      props.retainData,
      'This is the dead-letter queue of the work queue next to it.',
    );
    this.queue = createSecureQueue(this, 'Queue', {
      retainData: props.retainData,
      visibilityTimeout: props.visibilityTimeout,
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: props.maxReceiveCount },
    });
  }
}
