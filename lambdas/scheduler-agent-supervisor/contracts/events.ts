/** Operator alert events on the alert bus (EventBridge). */
export const ALERT_EVENT_SOURCE = 'order-processing';

/**
 * One alert per order that needs an operator. A conflicting resubmission raises none (one caller
 * could flood the operator): it is counted (SubmissionConflicts, alarmed on its rate) and kept on
 * the conflict dead-letter queue.
 */
export const AlertType = {
  /** An order reached ProcessState Error (agent permanent error or supervisor threshold). */
  OrderFailed: 'OrderFailed',
  /**
   * A compensation failed for good (refused, or maxCompensationFailures expired attempts): the
   * order is CompensationFailed and some effects may still stand. An operator must act.
   */
  CompensationFailed: 'CompensationFailed',
} as const;
export type AlertType = (typeof AlertType)[keyof typeof AlertType];

export interface OrderFailedDetail {
  readonly orderId: string;
  readonly reason: 'AgentPermanentFailure' | 'FailureThresholdReached';
  readonly failureCount: number;
  readonly attempt: number;
  readonly instanceId?: string;
  readonly error?: string;
  readonly cause?: string;
  readonly correlationId?: string;
}

export interface CompensationFailedDetail {
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

/**
 * The alert archive (operator inspect reads it): one item per alert, fed by a rule on the alert
 * bus. Partition OrderID, sort `<event time>#<event id>` so an order's alerts read in time order
 * and a redelivered event overwrites itself.
 */
export const AlertArchiveAttr = {
  OrderId: 'OrderID',
  /** `<time>#<event id>` (sort key). */
  AlertKey: 'AlertKey',
  Type: 'Type',
  At: 'At',
  EventId: 'EventId',
  Detail: 'Detail',
} as const;
