import { isoAt } from '../../shared/clock';
import {
  CompensationStatus,
  isKnownWorkflowVersion,
  type OperationName,
  ORDER_ID_PATTERN,
  ORDER_STEPS,
  type OrderStatusBody,
  type OrderStep,
  ProcessState,
  STATE_SCHEMA_VERSION,
  type StepName,
  StepStatus,
  SUPPORTED_STATE_SCHEMA_VERSIONS,
  type WorkflowTimings,
  workflowSteps,
} from '../contracts';
import { dueShardFor } from './shard';

export interface StepState {
  readonly status: StepStatus;
  readonly startedAt?: string;
  readonly completedAt?: string;
  readonly endedAt?: string;
  readonly result?: Readonly<Record<string, unknown>>;
}

/** One entry of the compensation log (CompensationLog.<step>, see contracts CompensationAttr). */
export interface CompensationEntry {
  readonly seq: number;
  readonly compensation: string;
  readonly undoes: string;
  readonly confirmationId?: string;
  readonly status: CompensationStatus;
  readonly uncertain?: boolean;
  readonly recordedAt?: string;
  readonly compensatingAt?: string;
  readonly compensatedAt?: string;
  readonly result?: Readonly<Record<string, unknown>>;
}

export interface LastError {
  readonly source: string;
  readonly error: string;
  readonly cause: string;
  readonly at: string;
}

/** The state store record in domain terms (see contracts/state-record.ts for the stored shape). */
export interface StateRecord {
  readonly orderId: string;
  readonly processState: ProcessState;
  readonly lockedBy?: string;
  /** Epoch millis; meaning depends on processState (see pendingCompleteBy and the claim Plan). */
  readonly completeBy: number;
  readonly dueShard?: string;
  readonly failureCount: number;
  readonly attempt: number;
  readonly steps: Readonly<Partial<Record<StepName, StepState>>>;
  /** Deadlines of the current attempt, per step and per compensation (written at claim time). */
  readonly plan?: Readonly<Partial<Record<OperationName, number>>>;
  /** The step the current attempt is running, if any. */
  readonly runningStep?: StepName;
  /** The compensation log: one entry per completed (or uncertain) step. */
  readonly compensationLog: Readonly<Partial<Record<StepName, CompensationEntry>>>;
  /** Compensation attempts the supervisor declared failed (expired). */
  readonly compensationFailureCount: number;
  readonly orderFingerprint: string;
  readonly schemaVersion: number;
  readonly workflowVersion: number;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly lastError?: LastError;
  /** The client application that submitted the order (absent on records older than clients). */
  readonly clientId?: string;
  /** The admission counter key holding this order's in-flight slot, until its release. */
  readonly admissionShard?: string;
  /** The client's own counter holding a slot of its share, released with admissionShard's. */
  readonly admissionClientShard?: string;
  /**
   * Calls a dependency may receive per operation of this order (schema 3; absent on a schema-2
   * record, which uses the deployment's budget).
   */
  readonly retryBudget?: number;
  /** Calls reserved so far, per operation (schema 3: created empty; absent on a schema-2 record until its first reservation). */
  readonly callsMade?: Readonly<Record<string, number>>;
}

/**
 * CompleteBy of a Pending record: the time by which the starter must have claimed it. It is always
 * "earliest start + startGraceSeconds", for a new order (earliest start = now), after a supervisor
 * reset (earliest start = end of the back-off) and after a supervisor restart (earliest start =
 * now). Keeping one meaning lets the starter recover the earliest start (CompleteBy - grace) and the
 * supervisor detect "nobody claimed it in time" (CompleteBy <= now) from the same attribute.
 */
export function pendingCompleteBy(
  earliestStartEpochMillis: number,
  timings: Pick<WorkflowTimings, 'startGraceSeconds'>,
): number {
  return earliestStartEpochMillis + timings.startGraceSeconds * 1000;
}

export function buildInitialStateRecord(input: {
  readonly orderId: string;
  readonly orderFingerprint: string;
  readonly now: number;
  readonly timings: Pick<WorkflowTimings, 'startGraceSeconds'>;
  readonly dueShardCount: number;
  /** The submitting client (ClientRegistry); optional only for callers that model no client. */
  readonly clientId?: string;
  readonly admissionShard?: string;
  readonly admissionClientShard?: string;
  /** The deployment's retry budget (calls per operation), fixed into the record for its lifetime. */
  readonly retryBudget: number;
  /** The deployment's current workflow version: the order runs its steps for its whole life. */
  readonly workflowVersion: number;
}): StateRecord {
  const at = isoAt(input.now);
  const steps: Partial<Record<StepName, StepState>> = {};
  for (const step of workflowSteps(input.workflowVersion)) {
    steps[step.name] = { status: StepStatus.NotStarted };
  }
  return {
    orderId: input.orderId,
    processState: ProcessState.Pending,
    completeBy: pendingCompleteBy(input.now, input.timings),
    dueShard: dueShardFor(input.orderId, input.dueShardCount),
    failureCount: 0,
    attempt: 0,
    steps,
    compensationLog: {},
    compensationFailureCount: 0,
    orderFingerprint: input.orderFingerprint,
    schemaVersion: STATE_SCHEMA_VERSION,
    workflowVersion: input.workflowVersion,
    createdAt: at,
    updatedAt: at,
    ...(input.clientId !== undefined && { clientId: input.clientId }),
    ...(input.admissionShard !== undefined && { admissionShard: input.admissionShard }),
    ...(input.admissionClientShard !== undefined && { admissionClientShard: input.admissionClientShard }),
    retryBudget: input.retryBudget,
    // Created empty so every reservation can ADD to CallsMade.<operation> (DynamoDB cannot ADD
    // inside a map that does not exist).
    callsMade: {},
  };
}

export function stepStatusOf(record: Pick<StateRecord, 'steps'>, step: StepName): StepStatus {
  return record.steps[step]?.status ?? StepStatus.NotStarted;
}

/**
 * Whether a compensation attempt may have to undo the step: its log entry exists and is not
 * Compensated, or the step's outcome is uncertain (TimedOut) and it was not compensated yet. This
 * is what the state machine's `<Step>.Undo.Check` decides from the loaded record.
 */
export function mayNeedCompensation(
  record: Pick<StateRecord, 'steps' | 'compensationLog'>,
  step: StepName,
): boolean {
  const entry = record.compensationLog[step];
  if (entry !== undefined) return entry.status !== CompensationStatus.Compensated;
  return stepStatusOf(record, step) === StepStatus.TimedOut;
}

/** What GET /orders/{orderId} shows: states and counters, never locks, plans or fingerprints. */
export function toOrderStatusBody(record: StateRecord): OrderStatusBody {
  return {
    orderId: record.orderId,
    processState: record.processState,
    failureCount: record.failureCount,
    attempt: record.attempt,
    steps: stepsOfRecord(record).map((step) => ({
      name: step.name,
      status: stepStatusOf(record, step.name),
    })),
    updatedAt: record.updatedAt,
  };
}

/**
 * The steps of the record's own workflow version, in order. A version this code does not know
 * (only reachable for display: every role that acts on a record refuses it first, see
 * UnsupportedRecordVersion) shows the steps the record holds, in catalogue order.
 */
export function stepsOfRecord(record: Pick<StateRecord, 'steps' | 'workflowVersion'>): readonly OrderStep[] {
  if (isKnownWorkflowVersion(record.workflowVersion)) return workflowSteps(record.workflowVersion);
  return ORDER_STEPS.filter((step) => record.steps[step.name] !== undefined);
}

/**
 * A record this deployment must not act on: its WorkflowVersion is not live here (retired, or
 * written by a newer deployment: its steps and state machine are not ours to guess), or its
 * SchemaVersion is not one this code reads. Refused loudly and left untouched, never misread.
 */
export class UnsupportedRecordVersion extends Error {
  constructor(
    readonly orderId: string,
    readonly detail: string,
  ) {
    super(`State record '${orderId}' is not supported here: ${detail}`);
    this.name = 'UnsupportedRecordVersion';
  }
}

/** Why this deployment cannot act on a record of these versions, or undefined when it can. */
export function recordVersionProblem(
  versions: { readonly schemaVersion: number; readonly workflowVersion: number },
  liveWorkflowVersions: readonly number[],
): string | undefined {
  if (!SUPPORTED_STATE_SCHEMA_VERSIONS.includes(versions.schemaVersion)) {
    return `SchemaVersion ${versions.schemaVersion}; supported: ${SUPPORTED_STATE_SCHEMA_VERSIONS.join(', ')}`;
  }
  if (!liveWorkflowVersions.includes(versions.workflowVersion)) {
    return `WorkflowVersion ${versions.workflowVersion}; live workflow versions: ${liveWorkflowVersions.join(', ')}`;
  }
  return undefined;
}

/** Throws UnsupportedRecordVersion unless this deployment may act on the record. */
export function assertRecordVersionLive(
  record: Pick<StateRecord, 'orderId' | 'schemaVersion' | 'workflowVersion'>,
  liveWorkflowVersions: readonly number[],
): void {
  const problem = recordVersionProblem(record, liveWorkflowVersions);
  if (problem !== undefined) throw new UnsupportedRecordVersion(record.orderId, problem);
}

const INSTANCE_ID_SEPARATOR = '--attempt-';
/** Step Functions execution names are at most 80 characters. */
export const MAX_INSTANCE_ID_LENGTH = 80;
// Greedy prefix: an orderId may itself contain "--attempt-"; the attempt is always the last suffix.
const INSTANCE_ID_PATTERN = /^(.+)--attempt-([1-9][0-9]*)$/;

/**
 * Attempt-specific instance id, used both as LockedBy and as the execution name, so two starters of
 * the same attempt collide on the name instead of running twice.
 */
export function instanceIdFor(orderId: string, attempt: number): string {
  if (!ORDER_ID_PATTERN.test(orderId)) {
    throw new Error(`instanceIdFor: '${orderId}' is not a valid orderId`);
  }
  if (!Number.isSafeInteger(attempt) || attempt < 1) {
    throw new Error(`instanceIdFor: attempt must be a positive integer, got ${attempt}`);
  }
  const id = `${orderId}${INSTANCE_ID_SEPARATOR}${attempt}`;
  if (id.length > MAX_INSTANCE_ID_LENGTH) {
    throw new Error(`instanceIdFor: '${id}' is longer than ${MAX_INSTANCE_ID_LENGTH} characters`);
  }
  return id;
}

export function parseInstanceId(instanceId: string): { orderId: string; attempt: number } | undefined {
  const match = INSTANCE_ID_PATTERN.exec(instanceId);
  if (!match?.[1] || !match[2] || !ORDER_ID_PATTERN.test(match[1])) {
    return undefined;
  }
  const attempt = Number(match[2]);
  return Number.isSafeInteger(attempt) ? { orderId: match[1], attempt } : undefined;
}
