/**
 * Remediation: one decision for each dead-lettered message of every consumer, taken from the
 * reason code's ladder (remediationFor) by how often this delivery's work was dead-lettered for that
 * reason by that service. A RETRY or PIVOT waits out a back-off first (counted from when the message
 * was dead-lettered); while it has not elapsed the record is deferred and nothing is recorded, so the
 * occurrence is counted once, when the decision is finally taken.
 */
import {
  type DeliveryAlert,
  EVENT_TYPES,
  EventType,
  OutboxDestination,
  parseEvent,
  REASON_CODES,
  ReasonCode,
  RemediationDecision,
  type RemediationSettings,
  remediationFor,
  type ServiceName,
} from '../contracts';
import { type Decision, ignored } from './decision';
import { type Emission, emission } from './envelope';

/** The REMEDIATION# key of dead letters that name no delivery (poison). */
export const UNATTRIBUTED = '-unattributed';

/** A message read from a consumer's dead-letter queue, as the adapter found it. */
export interface DeadLetteredMessage {
  /** Stable per dead letter (a hash of its deduplication id or body): decided exactly once. */
  readonly deadLetterKey: string;
  /** The service whose dead-letter queue held it. */
  readonly source: ServiceName;
  /** The reasonCode attribute as sent; absent when the queue's redrive moved the message. */
  readonly reasonCode: string | undefined;
  /** When it was dead-lettered (the attribute, else when the dead-letter queue received it). */
  readonly deadLetteredAt: Date;
  readonly body: string;
}

export interface DecisionRecord {
  readonly deadLetterKey: string;
  readonly decision: RemediationDecision;
  readonly reasonCode: ReasonCode;
  readonly source: ServiceName;
  readonly occurrence: number;
  readonly decidedAt: string;
}

/** The REMEDIATION# item of a delivery (or of UNATTRIBUTED), without its change log. */
export interface RemediationState {
  readonly deliveryId: string;
  /** `<source>#<reasonCode>` → dead letters decided so far. */
  readonly occurrences: Readonly<Record<string, number>>;
  readonly decisions: readonly DecisionRecord[];
}

/** What the store writes for a decision: the item, the events (RemediationDecided) and the alerts. */
export interface RemediationChange {
  readonly remediation: RemediationState;
  readonly alerts: readonly DeliveryAlert[];
}

export type RemediationOutcome =
  | Decision<RemediationChange>
  | {
      readonly kind: 'defer';
      /** Seconds until the back-off has elapsed (at least 1). */
      readonly delaySeconds: number;
      readonly decision: RemediationDecision;
      readonly occurrence: number;
    };

/** What remediation can read of a dead letter's body: whose it is, and the message to retry. */
export interface DeadLetterSubject {
  /** UNATTRIBUTED when the body names no delivery. */
  readonly key: string;
  readonly deliveryId?: string;
  readonly correlationId?: string;
  readonly eventId?: string;
  /** The body as a JSON object, when it is one (what a RETRY or PIVOT repeats). */
  readonly message?: Record<string, unknown>;
}

export function subjectOf(body: string): DeadLetterSubject {
  const parsed = parseEvent(body, EVENT_TYPES);
  const known = parsed.ok
    ? {
        deliveryId: parsed.event.deliveryId,
        correlationId: parsed.event.correlationId,
        eventId: parsed.event.eventId,
      }
    : parsed;
  if (known.deliveryId === undefined) return { key: UNATTRIBUTED };
  return {
    key: known.deliveryId,
    deliveryId: known.deliveryId,
    ...(known.correlationId === undefined ? {} : { correlationId: known.correlationId }),
    ...(known.eventId === undefined ? {} : { eventId: known.eventId }),
    message: JSON.parse(body) as Record<string, unknown>,
  };
}

/** Back-off before the n-th RETRY or PIVOT (1-based): base × 2^(n-1), at most max. */
export function backoffSeconds(occurrence: number, settings: RemediationSettings): number {
  return Math.min(settings.retryMaxSeconds, settings.retryBaseSeconds * 2 ** (occurrence - 1));
}

const isReasonCode = (value: string): value is ReasonCode =>
  (REASON_CODES as readonly string[]).includes(value);

export interface RemediationInput {
  readonly state: RemediationState | undefined;
  readonly deadLetter: DeadLetteredMessage;
  readonly now: Date;
  readonly settings: RemediationSettings;
}

export function decideRemediation(input: RemediationInput): RemediationOutcome {
  const { deadLetter, now, settings } = input;
  const subject = subjectOf(deadLetter.body);
  const state: RemediationState = input.state ?? { deliveryId: subject.key, occurrences: {}, decisions: [] };
  if (state.decisions.some((decided) => decided.deadLetterKey === deadLetter.deadLetterKey)) {
    return ignored('this dead letter was decided already');
  }
  const raw = deadLetter.reasonCode;
  // No attribute: the queue's redrive moved it (the consumer crashed or timed out every time).
  // An attribute outside the contract is itself a defect for an operator, like a poison message.
  const reasonCode: ReasonCode =
    raw === undefined ? ReasonCode.RetriesExhausted : isReasonCode(raw) ? raw : ReasonCode.SchemaInvalid;
  const occurrenceKey = `${deadLetter.source}#${reasonCode}`;
  const occurrence = (state.occurrences[occurrenceKey] ?? 0) + 1;
  const decision =
    subject.deliveryId === undefined || (raw !== undefined && !isReasonCode(raw))
      ? RemediationDecision.Alert
      : (remediationFor(reasonCode, occurrence) ?? RemediationDecision.Alert);

  if (decision === RemediationDecision.Retry || decision === RemediationDecision.Pivot) {
    const dueAt = deadLetter.deadLetteredAt.getTime() + backoffSeconds(occurrence, settings) * 1000;
    if (now.getTime() < dueAt) {
      return {
        kind: 'defer',
        delaySeconds: Math.max(1, Math.ceil((dueAt - now.getTime()) / 1000)),
        decision,
        occurrence,
      };
    }
  }

  const detail = describe(deadLetter, subject, reasonCode, raw, occurrence, decision);
  const emissions: Emission[] =
    subject.deliveryId === undefined
      ? []
      : [
          emission(OutboxDestination.RequestsTopic, EventType.RemediationDecided, {
            decision,
            reasonCode,
            source: deadLetter.source,
            occurrence,
            deadLetteredEventId: subject.eventId ?? deadLetter.deadLetterKey,
            detail,
            ...((decision === RemediationDecision.Retry || decision === RemediationDecision.Pivot) &&
              subject.message && { retryOf: subject.message }),
          }),
        ];
  const alerts: DeliveryAlert[] =
    decision === RemediationDecision.GiveUp || decision === RemediationDecision.Alert
      ? [
          {
            alertId: `remediation:${deadLetter.deadLetterKey}`,
            ...(subject.deliveryId === undefined ? {} : { deliveryId: subject.deliveryId }),
            ...(subject.correlationId === undefined ? {} : { correlationId: subject.correlationId }),
            reasonCode,
            decision,
            source: deadLetter.source,
            detail,
            raisedAt: now.toISOString(),
          },
        ]
      : [];
  return {
    kind: 'change',
    state: {
      remediation: {
        ...state,
        occurrences: { ...state.occurrences, [occurrenceKey]: occurrence },
        decisions: [
          ...state.decisions,
          {
            deadLetterKey: deadLetter.deadLetterKey,
            decision,
            reasonCode,
            source: deadLetter.source,
            occurrence,
            decidedAt: now.toISOString(),
          },
        ],
      },
      alerts,
    },
    emissions,
  };
}

function describe(
  deadLetter: DeadLetteredMessage,
  subject: DeadLetterSubject,
  reasonCode: ReasonCode,
  raw: string | undefined,
  occurrence: number,
  decision: RemediationDecision,
): string {
  const what = subject.eventId ?? (subject.deliveryId ? `a message of ${subject.deliveryId}` : 'a message');
  const why =
    raw !== undefined && !isReasonCode(raw) ? `unknown reason code ${raw.slice(0, 64)}` : reasonCode;
  return `${deadLetter.source} dead-lettered ${what} (${why}, occurrence ${occurrence}): ${decision}`.slice(
    0,
    512,
  );
}
