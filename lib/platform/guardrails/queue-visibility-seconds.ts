/**
 * A queue's visibility timeout as synthesized: one reading, with SQS's default, for the guardrail
 * that compares it with its consumer's timeout (queue-visibility.ts) and for the delivery queues'
 * oldest-message alarms, whose threshold is the queue's retry window (lib/choreography/operations.ts).
 */
import { Stack } from 'aws-cdk-lib';
import type * as sqs from 'aws-cdk-lib/aws-sqs';

/** SQS's VisibilityTimeout when a queue does not set one, seconds. */
const DEFAULT_VISIBILITY_SECONDS = 30;

/** The queue's visibility timeout in seconds: SQS's default when unset, undefined when only known at deploy time. */
export function queueVisibilitySeconds(queue: sqs.CfnQueue): number | undefined {
  const value: unknown = Stack.of(queue).resolve(queue.visibilityTimeout);
  if (value === undefined) return DEFAULT_VISIBILITY_SECONDS;
  return typeof value === 'number' ? value : undefined;
}
