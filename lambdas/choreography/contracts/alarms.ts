/**
 * The choreography's alarms, as data (AlarmSpec): what lib/choreography/operations.ts builds, what
 * docs/operations.md tabulates and what `npm run deliveries -- metrics` names. Each notifies the
 * operator topic when it fires and when it clears: that topic gets alarm state changes (one per
 * reason and period), never one mail per alert item.
 */
import { type AlarmSpec, SERVICE_DIMENSION, SqsMetric } from '../../shared/alarm-spec';
import { pascalCase } from '../../shared/pascal-case';
import { DeliveryMetric, REASON_CODE_DIMENSION } from './metrics';
import { ServiceName } from './names';
import { REASON_CODES, type ReasonCode } from './reason-codes';

/** One alarm per dead-letter queue of the stack (found in the synthesized resources). */
export const DELIVERY_DEAD_LETTER_QUEUE_ALARM = {
  name: 'DeadLetters',
  metric: SqsMetric.ApproximateNumberOfMessagesVisible,
  statistic: 'Maximum',
  comparison: 'GreaterThanOrEqualToThreshold',
  threshold: 1,
  treatMissingData: 'ignore',
  description: 'Messages are waiting in a dead-letter queue of drone delivery: work that failed for good.',
  action:
    'Read the messages (deliveryId, correlation id, reasonCode), find the cause in the logs, fix it, then redrive the queue or act per delivery (npm run deliveries -- show).',
} as const satisfies AlarmSpec<SqsMetric>;

/** Letters and digits of a reason code, for an alarm name (`NO_DRONE_AVAILABLE` → `NoDroneAvailable`). */
export function reasonCodeAlarmSuffix(reasonCode: ReasonCode): string {
  return pascalCase(reasonCode.toLowerCase());
}

/**
 * One alarm per reason code on remediation's give-ups (decisions GIVE_UP and ALERT, each also an
 * item of the alert archive and inbox): a give-up in a period fires it, a period without one clears it.
 */
export function remediationGiveUpAlarms(): AlarmSpec<DeliveryMetric>[] {
  return REASON_CODES.map((reasonCode) => ({
    name: `RemediationGiveUps${reasonCodeAlarmSuffix(reasonCode)}`,
    metric: DeliveryMetric.RemediationGiveUps,
    statistic: 'Sum',
    comparison: 'GreaterThanOrEqualToThreshold',
    threshold: 1,
    dimensions: { [SERVICE_DIMENSION]: ServiceName.Remediation, [REASON_CODE_DIMENSION]: reasonCode },
    treatMissingData: 'notBreaching',
    description: `Remediation gave up on deliveries for reason ${reasonCode}: each is a DeliveryFailed and an item of the alert archive.`,
    action:
      'List the alerts of the period (npm run deliveries -- alerts, or the console), read each delivery (npm run deliveries -- show <id>), fix the cause, and tell the requester.',
  }));
}

/** The oldest-message alarm's name after `<stack>-` (each queue's adds its construct path). */
export const OLDEST_MESSAGE_AGE_ALARM_NAME = 'OldestMessageAge';

/**
 * Oldest message age (s) of a FIFO work queue above which its consumer is stuck or falling behind.
 * The threshold is the queue's retry window, VisibilityTimeout × maxReceiveCount of its redrive
 * policy: the longest a message that keeps failing stays on the queue, received again after each
 * visibility timeout, before SQS moves it to the dead-letter queue (whose alarm and remediation then
 * take it). Below it an old message may be one being retried; past it, only a consumer that does
 * not receive or a backlog explains it. A fixed figure would either fire for every poison message
 * (a window longer than it) or stay silent while retries hide a stuck consumer.
 */
export function oldestMessageAgeAlarm(retryWindowSeconds: number): AlarmSpec<SqsMetric> {
  return {
    name: OLDEST_MESSAGE_AGE_ALARM_NAME,
    metric: SqsMetric.ApproximateAgeOfOldestMessage,
    statistic: 'Maximum',
    comparison: 'GreaterThanOrEqualToThreshold',
    threshold: retryWindowSeconds,
    evaluationPeriods: 3,
    treatMissingData: 'ignore',
    description:
      'The oldest message of a delivery queue has waited longer than the queue retries a failing message: its consumer is stuck or falling behind (for the ingestion queue, the read model lags).',
    action:
      "Read the consumer's logs and errors (throttles, dependency timeouts); a message that keeps failing reaches remediation by itself.",
  };
}

/**
 * Lambda's stream iterator age (ms) of an outbox relay: the outbox lag. The threshold is a tolerance,
 * not derived: the relay's settings (retries, timeout, maximum record age) bound how long a failing
 * batch may hold its shard, not how late an event may reach the services; a minute is far below
 * every profile's maximum record age, so the alarm fires before records are given up for age.
 */
export const RELAY_ITERATOR_AGE_ALARM = {
  name: 'OutboxLag',
  metric: 'IteratorAge',
  statistic: 'Maximum',
  comparison: 'GreaterThanOrEqualToThreshold',
  threshold: 60_000,
  evaluationPeriods: 3,
  treatMissingData: 'ignore',
  description:
    'An outbox relay is a minute or more behind its table stream: events are committed but not published.',
  action:
    "Read the relay's logs and its OutboxPublishFailures; a batch that keeps failing goes to the relay dead-letter queue.",
} as const satisfies AlarmSpec;

/** API Gateway 5XXError (Sum) of the delivery API. */
export const DELIVERY_API_5XX_ALARM = {
  name: 'DeliveryApi5xx',
  metric: '5XXError',
  statistic: 'Sum',
  comparison: 'GreaterThanOrEqualToThreshold',
  threshold: 1,
  treatMissingData: 'notBreaching',
  description: 'The delivery API answered 5xx: requesters saw server errors.',
  action: 'Read the submit and get handlers’ logs and errors; a 5xx is a defect or a dependency failing.',
} as const satisfies AlarmSpec;
