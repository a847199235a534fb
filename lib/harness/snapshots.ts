/**
 * What the tooling reads of a running order system (orders-driver.ts reads it; the chaos campaign's
 * invariants and the benchmarks judge it): the state records, the downstream ledger, alerts and
 * client replies, as plain snapshots.
 */
import type { ClientStatusMessage } from '../../lambdas/scheduler-agent-supervisor/contracts';

export interface AlertSnapshot {
  readonly detailType: string;
  readonly orderId?: string;
  readonly reason?: string;
  /**
   * The alert's identity (outbox alerts): delivery is at least once, so the inbox may hold one
   * alert more than once; copies of one AlertId count as one alert.
   */
  readonly alertId?: string;
  /**
   * Set when the inbox message is a CloudWatch alarm notification, not an order alert: the
   * alarms notify the same topic and the inbox takes their notifications. No order-alert
   * invariant counts one (orderAlerts); the report counts the alarms fired (alarmsFired).
   */
  readonly alarm?: AlarmNotificationSnapshot;
}

/** One message taken from a client's reply queue, read with that client's own identity. */
export interface ClientMessageDelivery {
  /** The client whose reply queue it came from. */
  readonly queueOf: string;
  readonly receivedAt: number;
  /** The body, when it is a ClientStatusMessage. */
  readonly message?: ClientStatusMessage;
  /** Why the body is not one. */
  readonly invalid?: string;
}

/** One CompensationLog.<Step> entry as the checker needs it. */
export interface CompensationEntrySnapshot {
  /** Recorded | Compensating | Compensated | Failed. */
  readonly status: string;
  /** Created for a TimedOut step undone just in case (the step may never have been done). */
  readonly uncertain?: boolean;
  /** CompensatedAt, epoch millis. */
  readonly compensatedAt?: number;
  /** The compensating service's answer: false when it had nothing to undo. */
  readonly undone?: boolean;
}

/** The calls the downstream received for one key (its ledger's counter). */
export interface LedgerCallsSnapshot {
  readonly service: string;
  readonly idempotencyKey: string;
  readonly calls: number;
}

/** What the campaign reads of an effect in a downstream's ledger (the fake's LedgerEffect, lambdas/fakes/adapters/ledger.ts). */
export interface LedgerEffectSnapshot {
  readonly service: string;
  readonly idempotencyKey: string;
  /** The compensation key that undid it; absent while it stands. */
  readonly undoneBy?: string;
}

/** A compensation's answer in the ledger (once per compensation key). */
export interface LedgerUndoSnapshot {
  readonly service: string;
  /** The compensation's own key, `<orderId>:<CompensationName>`. */
  readonly idempotencyKey: string;
  /** The key of the effect it undoes, `<orderId>:<StepName>`. */
  readonly undoes: string;
  /** True: an effect was undone; false: there was none (the key was closed instead). */
  readonly undone: boolean;
  /** When the service recorded it, epoch millis. */
  readonly at?: number;
}

/** One OperatorLog entry as the checker needs it. */
export interface OperatorLogEntrySnapshot {
  readonly action: string;
  readonly by: string;
  readonly reason: string;
  readonly seenState: string;
  readonly seenUpdatedAt: string;
  readonly newState: string;
}

export interface RecordSnapshot {
  readonly orderId: string;
  readonly processState: string;
  readonly lockedBy?: string;
  readonly failureCount: number;
  /** Compensation attempts the supervisor declared failed. @default 0 */
  readonly compensationFailureCount?: number;
  readonly attempt: number;
  /** Step name -> Status. */
  readonly steps: Readonly<Record<string, string>>;
  /** Step name -> its compensation log entry (absent: no entry). */
  readonly compensationLog?: Readonly<Record<string, CompensationEntrySnapshot>>;
  /** The record's OperatorLog, oldest first (absent: none). */
  readonly operatorLog?: readonly OperatorLogEntrySnapshot[];
  /** The record's RetryBudget (absent on a schema-2 record: the deployment's applies). */
  readonly retryBudget?: number;
  /** The record's CallsMade: calls reserved per operation (absent: none reserved). */
  readonly callsMade?: Readonly<Record<string, number>>;
}

/** One receive on a client's reply queue with another client's identity. */
export interface ReplyQueueProbe {
  readonly reader: string;
  readonly queueOf: string;
  /** 'AccessDenied', 'allowed' (it was let in), or the error it got instead. */
  readonly outcome: string;
}

/** An alarm notification from the inbox: the alarm (its name after `<stack>-`) and its new state. */
export interface AlarmNotificationSnapshot {
  readonly name: string;
  readonly newState: string;
}
