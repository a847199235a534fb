/** Operator alert events on the alert bus (EventBridge). */
export const ALERT_EVENT_SOURCE = 'order-processing';

export const AlertType = {
  /** An order reached ProcessState Error (agent permanent error or supervisor threshold). */
  OrderFailed: 'OrderFailed',
  /** A resubmission carried data conflicting with the stored order; it went to the DLQ. */
  SubmissionConflict: 'SubmissionConflict',
  /**
   * A compensation failed for good (refused, or maxCompensationFailures expired attempts): the
   * order is CompensationFailed and some effects may still stand. An operator must act.
   */
  CompensationFailed: 'CompensationFailed',
} as const;
export type AlertType = (typeof AlertType)[keyof typeof AlertType];

export interface OrderFailedDetail {
  /** The alert's stable identity (alertIdFor): consumers de-duplicate on it. */
  readonly alertId: string;
  /** When the state change that raised it was written (the outbox entry's At). */
  readonly at: string;
  readonly orderId: string;
  readonly reason: 'AgentPermanentFailure' | 'FailureThresholdReached';
  readonly failureCount: number;
  readonly attempt: number;
  readonly instanceId?: string;
  readonly error?: string;
  readonly cause?: string;
  readonly correlationId?: string;
}

export interface SubmissionConflictDetail {
  readonly orderId: string;
  readonly storedFingerprint: string;
  readonly submittedFingerprint: string;
  readonly correlationId?: string;
}

export interface CompensationFailedDetail {
  /** The alert's stable identity (alertIdFor): consumers de-duplicate on it. */
  readonly alertId: string;
  /** When the state change that raised it was written (the outbox entry's At). */
  readonly at: string;
  readonly orderId: string;
  readonly reason: 'CompensationRefused' | 'CompensationThresholdReached';
  readonly compensationFailureCount: number;
  readonly attempt: number;
  /** The step whose compensation failed, when known. */
  readonly step?: string;
  readonly instanceId?: string;
  readonly error?: string;
  readonly cause?: string;
  readonly correlationId?: string;
}

/** The alerts a state change raises through the outbox (AlertOutbox), not published directly. */
export type OutboxAlertType = typeof AlertType.OrderFailed | typeof AlertType.CompensationFailed;

/**
 * The identity of an alert raised through the outbox: one per (order, alert type, attempt). The
 * attempt is the one whose end raised it (the supervisor's expired attempt, the execution's own),
 * and Attempt only grows (an operator retry is a new claim), so a re-run of the same transition
 * (its fence fails) cannot make a second alert, and a later failure of the same order a new one.
 * The scheduler's ASL renders the same text (States.Format) in store-updates.ts.
 */
export function alertIdFor(orderId: string, type: OutboxAlertType, attempt: number): string {
  return `${orderId}:${type}:${attempt}`;
}

/**
 * One entry of the state record's AlertOutbox (`AlertOutbox.<AlertId>`), written by the very
 * UpdateItem of the transition that raises the alert and removed once the alert is on the bus
 * (DESIGN.md, Alert outbox). The published detail (OrderFailedDetail, CompensationFailedDetail) is
 * made from it and the record's OrderID.
 */
export const AlertOutboxAttr = {
  AlertId: 'AlertId',
  /** OrderFailed | CompensationFailed (OutboxAlertType): the event's detail-type. */
  Type: 'Type',
  /** OrderFailedDetail.reason or CompensationFailedDetail.reason. */
  Reason: 'Reason',
  /** ISO-8601: the transition's time. */
  At: 'At',
  Attempt: 'Attempt',
  /** The lock of the attempt that ended (its instance id). */
  InstanceId: 'InstanceId',
  /** OrderFailed: the FailureCount written with it. */
  FailureCount: 'FailureCount',
  /** CompensationFailed: the CompensationFailureCount when it was raised. */
  CompensationFailureCount: 'CompensationFailureCount',
  /** The LastError written with it (LastErrorAttr). */
  LastError: 'LastError',
  /** The step that was running (OrderFailed) or could not be undone (CompensationFailed), when known. */
  Step: 'Step',
  /** The supervisor run or the execution that raised it. */
  CorrelationId: 'CorrelationId',
} as const;

/**
 * The alert archive (operator inspect reads it): one item per alert, fed by a rule on the alert
 * bus. Partition OrderID, sort `<at>#<alert id>` for an alert raised through the outbox (its
 * outbox time and AlertId, both stable across redeliveries, so the conditional put keeps one item
 * per AlertId), `<event time>#<event id>` for any other; an order's alerts read in time order.
 */
export const AlertArchiveAttr = {
  OrderId: 'OrderID',
  /** `<time>#<event id>` (sort key). */
  AlertKey: 'AlertKey',
  Type: 'Type',
  At: 'At',
  EventId: 'EventId',
  /** The alert's AlertId, when it has one (outbox alerts). */
  AlertId: 'AlertId',
  Detail: 'Detail',
} as const;
