/**
 * What the order campaign observed, as its checker (invariants.ts) reads it: the orders and their
 * outcomes, samples of records and admission, operator actions, client replies, restarts.
 */
import type { WorkflowTimings } from '../../../lambdas/scheduler-agent-supervisor/contracts';
import type {
  AlertSnapshot,
  ClientMessageDelivery,
  LedgerCallsSnapshot,
  LedgerEffectSnapshot,
  LedgerUndoSnapshot,
  RecordSnapshot,
  ReplyQueueProbe,
} from '../../harness/snapshots';
import type { RestartWindow } from '../common/verdicts';
import type { FaultEvent, FaultKind } from './faults';

/** A record as seen while the campaign ran (the sampler reads in-flight orders every tick). */
export interface RecordSample extends RecordSnapshot {
  readonly at: number;
}

export interface OrderOutcome {
  readonly orderId: string;
  /** When the API accepted it (202, or 200 for an identical resubmission); absent if never. */
  readonly acceptedAt?: number;
  /** When its record was first seen terminal; absent if never. */
  readonly terminalAt?: number;
  /** The plan made success impossible (PERM-FAIL, outage): it must not be Processed. */
  readonly mustFail: boolean;
  /** How a failing plan must end (Error, Compensated, CompensationFailed). */
  readonly expectedOutcome?: string;
  /** The step planned to fail for good (or to be out), for the outcome check. */
  readonly failingStep?: string;
  /**
   * The client whose API key submitted it: its status messages go to that client's queue only.
   * Absent: submitted with no client's key, so the order's own messages are not judged.
   */
  readonly clientId?: string;
  /**
   * When an operator action last took it out of a terminal state (a retry of Error, a cancel of
   * Processed): the bound then counts from here, as for new work.
   */
  readonly reopenedAt?: number;
}

/** One reading of what is in flight: records not terminal, and the admission counters' sum. */
export interface AdmissionSample {
  readonly at: number;
  /** Accepted orders whose record was not terminal at this reading. */
  readonly nonTerminal: number;
  /** Sum of InFlight over the admission counter shards. */
  readonly slotsHeld?: number;
}

export interface AdmissionObservation {
  /** The limit the assembly was synthesized with (ADMISSION_SETTINGS). */
  readonly limit: number;
  readonly samples: readonly AdmissionSample[];
  /**
   * Accepted orders submitted again (identically) while the API was refusing new work, and what
   * that resubmission got when it was refused (429): accepted work is never refused later.
   */
  readonly refusedAfterAcceptance: readonly string[];
}

/** One retry or cancel the campaign sent as operator, and what became of it. */
export interface OperatorActionSnapshot {
  readonly orderId: string;
  readonly action: string;
  /** Unique per action (the campaign numbers them), so its OperatorLog entry is found by it. */
  readonly reason: string;
  readonly seenState: string;
  readonly seenUpdatedAt: string;
  readonly at: number;
  /**
   * applied: 200; refused: 409 or 429 (nothing may be written); unknown: no answer (transport
   * error, 5xx), so the entry may or may not exist.
   */
  readonly outcome: 'applied' | 'refused' | 'unknown';
  readonly status?: number;
  /** StateChanged or NotAllowed for a 409. */
  readonly refusal?: string;
}

export interface OperatorObservation {
  /** The principal the campaign signs operator requests as (its OperatorLog `By`). */
  readonly identity: string;
  readonly actions: readonly OperatorActionSnapshot[];
}

export interface ClientObservation {
  /** The clients the campaign submitted as (the Clients output). */
  readonly clients: readonly string[];
  readonly deliveries: readonly ClientMessageDelivery[];
  readonly probes: readonly ReplyQueueProbe[];
  /**
   * SQS FIFO's deduplication window: a resend of a messageKey within it must have been dropped;
   * one later is the redelivery clients de-duplicate on messageKey (listed, not counted).
   */
  readonly deduplicationWindowMillis: number;
}

export interface CampaignSnapshot {
  readonly timings: WorkflowTimings;
  readonly terminalBoundMillis: number;
  readonly orders: readonly OrderOutcome[];
  readonly finalRecords: readonly RecordSnapshot[];
  readonly samples: readonly RecordSample[];
  readonly ledger: readonly LedgerEffectSnapshot[];
  /** The downstream's compensation answers (undos). */
  readonly undos: readonly LedgerUndoSnapshot[];
  /** The calls the downstream received, per key (every call counted, whatever its answer). */
  readonly calls: readonly LedgerCallsSnapshot[];
  /** The deployment's retry budget (the agents' RETRY_BUDGET), for records without their own. */
  readonly retryBudget: number;
  /** Requests by the app's own roles (and services) that IAM denied, as messages (iam-denials.ts). */
  readonly appDenials: readonly string[];
  readonly admission: AdmissionObservation;
  readonly alerts: readonly AlertSnapshot[];
  readonly faults: readonly FaultEvent[];
  readonly enabledKinds: readonly FaultKind[];
  readonly restarts: readonly RestartWindow[];
  /** The run is trivial below this share of Processed orders (of all planned orders). */
  readonly minProcessedShare: number;
  /** What the campaign did as operator (no actions when operator-actions is off). */
  readonly operator: OperatorObservation;
  /** The status messages taken from each client's reply queue, and the cross-client probes. */
  readonly clientMessages: ClientObservation;
}
