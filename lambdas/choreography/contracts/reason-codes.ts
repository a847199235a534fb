/**
 * The closed set of reason codes a failure can carry, what each means, who raises it, and what the
 * remediation consumer of the dead-letter queues does with it. The table in lambdas/choreography/README.md is this data.
 * A code outside this set is itself a defect: parsers reject it.
 */
import * as z from 'zod';
import { ServiceName } from './names';

export const ReasonCode = {
  /** The packages weigh more than a drone carries. Business rejection by the Package service. */
  PackageTooHeavy: 'PACKAGE_TOO_HEAVY',
  /** No drone can fly the delivery in the requested window (fleet busy, or out of range). */
  NoDroneAvailable: 'NO_DRONE_AVAILABLE',
  /** The message is JSON but does not fit its schema. Dead-lettered at once, never retried. */
  SchemaInvalid: 'SCHEMA_INVALID',
  /** The message's schemaVersion is not one this consumer knows. Dead-lettered at once. */
  UnknownVersion: 'UNKNOWN_VERSION',
  /** The message is not JSON, or names no delivery. Dead-lettered at once. */
  Poison: 'POISON',
  /** A dependency of the service (its table, a publish) kept failing or timing out for one message. */
  DependencyTimeout: 'DEPENDENCY_TIMEOUT',
  /**
   * The message reached a dead-letter queue through the queue's redrive policy (the consumer
   * crashed or timed out on every receive) so no service could name a reason: remediation names it.
   */
  RetriesExhausted: 'RETRIES_EXHAUSTED',
  /** The drone reported a failed flight. */
  FlightFailed: 'FLIGHT_FAILED',
  /** The delivery was cancelled by a compensation; later work for it is refused. */
  DeliveryCancelled: 'DELIVERY_CANCELLED',
} as const;
export type ReasonCode = (typeof ReasonCode)[keyof typeof ReasonCode];
export const REASON_CODES = Object.values(ReasonCode) as [ReasonCode, ...ReasonCode[]];
export const ReasonCodeSchema = z.enum(REASON_CODES);

/** What the remediation consumer decides for a dead-lettered message. */
export const RemediationDecision = {
  /** Saga compensation: undo what other services did (release the drone), cancel the delivery. */
  Compensate: 'COMPENSATE',
  /** Try the same work again, after a back-off. */
  Retry: 'RETRY',
  /** Try different work reaching the same goal (schedule a later slot). */
  Pivot: 'PIVOT',
  /** Nothing more can be tried: the delivery fails loudly (DeliveryFailed and an operator alert). */
  GiveUp: 'GIVE_UP',
  /** The message names no delivery it could act on: an operator looks at it. */
  Alert: 'ALERT',
} as const;
export type RemediationDecision = (typeof RemediationDecision)[keyof typeof RemediationDecision];
export const REMEDIATION_DECISIONS = Object.values(RemediationDecision) as [
  RemediationDecision,
  ...RemediationDecision[],
];
export const RemediationDecisionSchema = z.enum(REMEDIATION_DECISIONS);

export interface ReasonCodeDefinition {
  readonly meaning: string;
  /** Services that raise it. */
  readonly raisedBy: readonly ServiceName[];
  /** Whether a message carrying it is dead-lettered (the remediation consumer sees it). */
  readonly deadLettered: boolean;
  /** Whether the consumer dead-letters at once, without retrying the message. */
  readonly immediate: boolean;
  /**
   * What remediation does, in order: each decision is taken `times` times (back-off between
   * retries), then the next; the last is final. Empty when the code is never dead-lettered.
   */
  readonly remediation: readonly { readonly decision: RemediationDecision; readonly times: number }[];
}

const once = (decision: RemediationDecision) => ({ decision, times: 1 }) as const;

export const REASON_CODE_DEFINITIONS: Readonly<Record<ReasonCode, ReasonCodeDefinition>> = {
  PACKAGE_TOO_HEAVY: {
    meaning: 'the packages weigh more than a drone carries',
    raisedBy: [ServiceName.Package],
    deadLettered: true,
    immediate: true,
    remediation: [once(RemediationDecision.Compensate)],
  },
  NO_DRONE_AVAILABLE: {
    meaning: 'no drone can fly the delivery in the window asked for',
    raisedBy: [ServiceName.DroneScheduler],
    deadLettered: true,
    immediate: true,
    remediation: [
      { decision: RemediationDecision.Retry, times: 2 },
      once(RemediationDecision.Pivot),
      once(RemediationDecision.GiveUp),
    ],
  },
  SCHEMA_INVALID: {
    meaning: 'the message does not fit its schema',
    raisedBy: [ServiceName.Package, ServiceName.DroneScheduler, ServiceName.Delivery, ServiceName.Ingestion],
    deadLettered: true,
    immediate: true,
    remediation: [once(RemediationDecision.GiveUp)],
  },
  UNKNOWN_VERSION: {
    meaning: "the message's schemaVersion is not one the consumer knows",
    raisedBy: [ServiceName.Package, ServiceName.DroneScheduler, ServiceName.Delivery, ServiceName.Ingestion],
    deadLettered: true,
    immediate: true,
    remediation: [once(RemediationDecision.GiveUp)],
  },
  POISON: {
    meaning: 'the message is not JSON or names no delivery',
    raisedBy: [ServiceName.Package, ServiceName.DroneScheduler, ServiceName.Delivery, ServiceName.Ingestion],
    deadLettered: true,
    immediate: true,
    remediation: [once(RemediationDecision.Alert)],
  },
  DEPENDENCY_TIMEOUT: {
    meaning: "a dependency of the service kept failing or timing out on the message's last attempt",
    raisedBy: [ServiceName.Package, ServiceName.DroneScheduler, ServiceName.Delivery],
    deadLettered: true,
    immediate: false,
    remediation: [{ decision: RemediationDecision.Retry, times: 2 }, once(RemediationDecision.GiveUp)],
  },
  RETRIES_EXHAUSTED: {
    meaning: 'the consumer crashed or timed out on every receive; the queue redrove the message',
    raisedBy: [ServiceName.Remediation],
    deadLettered: true,
    immediate: false,
    remediation: [once(RemediationDecision.Retry), once(RemediationDecision.GiveUp)],
  },
  FLIGHT_FAILED: {
    meaning: 'the drone reported a failed flight',
    raisedBy: [ServiceName.DroneFleet],
    deadLettered: false,
    immediate: false,
    remediation: [],
  },
  DELIVERY_CANCELLED: {
    meaning: 'the delivery was cancelled by a compensation; later work for it is refused',
    raisedBy: [ServiceName.DroneScheduler, ServiceName.Package],
    deadLettered: false,
    immediate: false,
    remediation: [],
  },
};

/**
 * The decision for the n-th dead-lettering (1-based) of one delivery's work for one reason code:
 * the remediation ladder, walked one rung per occurrence; past its end the last rung holds.
 */
export function remediationFor(code: ReasonCode, occurrence: number): RemediationDecision | undefined {
  const ladder = REASON_CODE_DEFINITIONS[code].remediation;
  let remaining = occurrence;
  for (const rung of ladder) {
    if (remaining <= rung.times) return rung.decision;
    remaining -= rung.times;
  }
  return ladder.at(-1)?.decision;
}
