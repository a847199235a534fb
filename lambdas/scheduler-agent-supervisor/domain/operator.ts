/**
 * Operator actions (DESIGN.md, Operator actions): which states allow which action, what an action
 * writes, and why one is refused. Every action is conditional on exactly what the operator saw
 * (expectedState and expectedUpdatedAt), so an operator never acts on a record that moved on.
 */
import { isoAt } from '../../shared/clock';
import { jsonParser } from '../../shared/parse';
import { BODY_PATH, type FieldError } from '../../shared/validation';
import {
  MAX_OPERATOR_BODY_BYTES,
  notAllowedMessage,
  OPERATOR_HISTORY_MAX_PAGES,
  OPERATOR_HISTORY_PAGE_SIZE,
  OPERATOR_LIST_DEFAULT_LIMIT,
  OPERATOR_LIST_MAX_LIMIT,
  OPERATOR_MAX_ATTEMPTS_SHOWN,
  OPERATOR_MAX_ATTEMPTS_WITH_RUNS,
  OperatorAction,
  type OperatorActionRequest,
  OperatorActionRequestSchema,
  type OperatorActionResultBody,
  type OperatorAttemptView,
  type OperatorOrderDetailBody,
  OperatorRefusal,
  type OperatorRefusalBody,
  operatorActionAvailability,
  operatorTransitionFor,
  ProcessState,
  type StartOrderMessage,
  StepRunsRead,
  type WorkflowTimings,
} from '../contracts';
import { admissionSlotOrder, retryAfterSeconds } from './admission';
import type {
  AlertArchive,
  DrainReader,
  EventLog,
  ExecutionHistory,
  OperatorActionStore,
  OperatorActionWrite,
  OperatorLogEntry,
  OperatorRecordReader,
  OperatorRecordSummary,
  OperatorTransitionName,
  StartQueue,
} from './ports';
import { dueShardFor } from './shard';
import { instanceIdFor, pendingCompleteBy, recordVersionProblem } from './state-record';

/** Where each operator transition takes the order. */
export const OPERATOR_NEW_STATE: Readonly<Record<OperatorTransitionName, ProcessState>> = {
  operatorRetry: ProcessState.Pending,
  operatorRetryCompensation: ProcessState.CompensationInProgress,
  operatorCancel: ProcessState.CompensationInProgress,
};

export function refusalBody(
  refusal: OperatorRefusal,
  action: OperatorAction,
  current: Pick<OperatorRecordSummary, 'processState' | 'updatedAt'>,
  seen: Pick<OperatorActionRequest, 'expectedState' | 'expectedUpdatedAt'>,
): OperatorRefusalBody {
  const message =
    refusal === OperatorRefusal.NotAllowed
      ? notAllowedMessage(action, current.processState)
      : `The order changed since it was read (seen ${seen.expectedState} at ${seen.expectedUpdatedAt}, now ${current.processState} at ${current.updatedAt}); read it again and decide again`;
  return {
    message,
    refusal,
    currentState: current.processState,
    currentUpdatedAt: current.updatedAt,
  };
}

/** Why an action found the record not as the operator saw it: its state, or only its version. */
function refusalFor(
  action: OperatorAction,
  current: OperatorRecordSummary,
  request: OperatorActionRequest,
): OperatorRefusalBody {
  const refusal =
    operatorTransitionFor(action, current.processState) === undefined
      ? OperatorRefusal.NotAllowed
      : OperatorRefusal.StateChanged;
  return refusalBody(refusal, action, current, request);
}

export interface OperatorActionInput {
  readonly orderId: string;
  readonly action: OperatorAction;
  readonly request: OperatorActionRequest;
  /** The operator identity (the IAM principal's ARN). */
  readonly by: string;
  readonly correlationId: string;
}

export interface OperatorActionDependencies {
  readonly store: OperatorActionStore;
  readonly startQueue: StartQueue;
  readonly clock: { now(): number };
  readonly timings: Pick<WorkflowTimings, 'startGraceSeconds'>;
  readonly dueShardCount: number;
  /** Admission control: a retry takes a slot from these counters (as a submission does). */
  readonly admission: { readonly limit: number; readonly shards: number };
  /** The observed drain, for the Retry-After of a retry refused because every slot is taken. */
  readonly drain: DrainReader;
  /** The workflow versions deployed here: an action on a record of another version is refused. */
  readonly liveWorkflowVersions: readonly number[];
  readonly log: EventLog;
}

export type OperatorActionOutcome =
  | {
      readonly kind: 'applied';
      readonly body: OperatorActionResultBody;
      readonly entry: OperatorLogEntry;
      /** False when the start message could not be sent (the supervisor re-queues after startGrace). */
      readonly startQueued: boolean;
      /**
       * A retry only: the admission slot the order now holds, and whether this retry took it
       * ('taken') or kept the one the record still held ('kept').
       */
      readonly admission?: { readonly shard: string; readonly slot: 'taken' | 'kept' };
    }
  | { readonly kind: 'not-found' }
  | { readonly kind: 'refused'; readonly body: OperatorRefusalBody }
  /** A retry while every admission slot is taken: nothing was written; come back after Retry-After. */
  | { readonly kind: 'rejected'; readonly message: string; readonly retryAfterSeconds: number }
  /**
   * The record's workflow version is not live here (or its schema not supported): nothing was
   * written, since no state machine here may run it (UnsupportedRecordVersion).
   */
  | { readonly kind: 'unsupported-version'; readonly message: string };

/**
 * Retry or cancel: read the record, refuse when it is not what the operator saw or its state does
 * not allow the action, else apply the transition conditional on the very state and UpdatedAt seen
 * (a write between the read and the update loses the condition and is refused the same way), then
 * ask the starter to claim it. The read before the write tells the 404 and the refusal without
 * writing, and gives the failure count a retry resets, for the log: a write conditional on
 * UpdatedAt applies only to the record that was read, since every transition stamps UpdatedAt.
 *
 * A retry is new work and takes an admission slot atomically with its record update (see
 * applyRetry); a cancel takes none: compensation undoes work already admitted, it is not new work,
 * and an order being rolled back must never wait behind new submissions.
 */
export async function performOperatorAction(
  input: OperatorActionInput,
  deps: OperatorActionDependencies,
): Promise<OperatorActionOutcome> {
  const { action, request, orderId } = input;
  const current = await deps.store.summary(orderId);
  if (current === undefined) return { kind: 'not-found' };
  const versionProblem = recordVersionProblem(current, deps.liveWorkflowVersions);
  if (versionProblem !== undefined) {
    return {
      kind: 'unsupported-version',
      message: `Order '${orderId}' was not changed: its record has ${versionProblem}. Deploy its version again (see docs/deploy.md, Workflow versions) before acting on it`,
    };
  }
  // The rule the console shows (operatorActionAvailability), on the state the operator saw and
  // the record's lock as it is now.
  const availability = operatorActionAvailability(action, {
    processState: request.expectedState,
    ...(current.lockedBy !== undefined && { lockedBy: current.lockedBy }),
  });
  if (
    !availability.allowed ||
    current.processState !== request.expectedState ||
    current.updatedAt !== request.expectedUpdatedAt
  ) {
    return { kind: 'refused', body: refusalFor(action, current, request) };
  }
  const { transition } = availability;

  const now = deps.clock.now();
  const at = isoAt(now);
  const newState = OPERATOR_NEW_STATE[transition];
  const resetFailureCount =
    transition === 'operatorRetry'
      ? current.failureCount
      : transition === 'operatorRetryCompensation'
        ? current.compensationFailureCount
        : undefined;
  const entry: OperatorLogEntry = {
    action,
    by: input.by,
    reason: request.reason,
    at,
    seenState: request.expectedState,
    seenUpdatedAt: request.expectedUpdatedAt,
    newState,
    ...(resetFailureCount !== undefined && { resetFailureCount }),
  };
  const write: OperatorActionWrite = {
    orderId,
    transition,
    seenState: request.expectedState,
    seenUpdatedAt: request.expectedUpdatedAt,
    completeBy: pendingCompleteBy(now, deps.timings),
    dueShard: dueShardFor(orderId, deps.dueShardCount),
    entry,
    at: now,
  };
  const applied =
    transition === 'operatorCancel'
      ? { result: await deps.store.apply(write) }
      : await applyRetry(write, current, deps);
  if (applied.result === 'all-full') {
    const retryAfter = retryAfterSeconds(await deps.drain.read(), deps.clock.now());
    return {
      kind: 'rejected',
      retryAfterSeconds: retryAfter,
      message: `Too many orders in progress: a retry is new work and every admission slot is taken; order '${orderId}' was not changed. Retry after ${retryAfter} s`,
    };
  }
  if (applied.result === 'lost') {
    const after = await deps.store.summary(orderId);
    if (after === undefined) return { kind: 'not-found' };
    return { kind: 'refused', body: refusalFor(action, after, request) };
  }

  const message: StartOrderMessage = {
    orderId,
    reason: action === OperatorAction.Retry ? 'operator-retry' : 'operator-cancel',
    correlationId: input.correlationId,
  };
  let startQueued = true;
  try {
    await deps.startQueue.send(message);
  } catch (error) {
    // The record is back in the supervisor index with a claim window: the supervisor re-queues it
    // once startGrace has passed, so a lost start message only delays the action.
    startQueued = false;
    deps.log.warn('Start message not sent after an operator action; the supervisor will re-queue it', {
      orderId,
      action,
      error: error instanceof Error ? error.message : String(error),
    });
  }
  return {
    kind: 'applied',
    body: { orderId, action, processState: newState, updatedAt: at },
    entry,
    startQueued,
    ...('admission' in applied && applied.admission !== undefined && { admission: applied.admission }),
  };
}

type RetryApplied =
  | {
      readonly result: 'applied';
      readonly admission: { readonly shard: string; readonly slot: 'taken' | 'kept' };
    }
  | { readonly result: 'lost' | 'all-full' };

/**
 * A retry (Error -> Pending, CompensationFailed -> CompensationInProgress) is new work, so it
 * holds an admission slot like a submission:
 * - the record still holds one (it reached Error or CompensationFailed, but the release consumer
 *   has not run yet): it keeps that slot and takes none, conditional on still holding it (the
 *   release, finding the record no longer terminal, then leaves it alone);
 * - a release ran between the read and that write: the record is read again and, still as the
 *   operator saw it, takes a slot as below;
 * - otherwise the retry takes a slot in the same transaction as its update, trying the counters
 *   in the order a submission of this order would ('all-full' when every one is at its cap).
 */
async function applyRetry(
  write: OperatorActionWrite,
  current: OperatorRecordSummary,
  deps: OperatorActionDependencies,
): Promise<RetryApplied> {
  if (current.admissionShard !== undefined) {
    const kept = await deps.store.apply({ ...write, keepsSlot: current.admissionShard });
    if (kept === 'applied')
      return { result: 'applied', admission: { shard: current.admissionShard, slot: 'kept' } };
    const after = await deps.store.summary(write.orderId);
    const releasedMeanwhile =
      after !== undefined &&
      after.admissionShard === undefined &&
      after.lockedBy === undefined &&
      after.processState === write.seenState &&
      after.updatedAt === write.seenUpdatedAt;
    if (!releasedMeanwhile) return { result: 'lost' };
  }
  const slots = admissionSlotOrder(write.orderId, deps.admission.limit, deps.admission.shards);
  for (const slot of slots) {
    const result = await deps.store.applyTakingSlot(write, slot);
    if (result === 'applied') return { result, admission: { shard: slot.key, slot: 'taken' } };
    if (result === 'lost') return { result };
  }
  return { result: 'all-full' };
}

// ---------------------------------------------------------------------------------------------
// Inspect
// ---------------------------------------------------------------------------------------------

export interface InspectDependencies {
  readonly records: OperatorRecordReader;
  readonly executions: ExecutionHistory;
  readonly alerts: Pick<AlertArchive, 'alertsOf'>;
}

/**
 * GET /operator/orders/{orderId}: the record, then its attempts (executions named by the
 * attempt's instance id; a missing one is shown as NotFound, not hidden) and archived alerts.
 */
export async function inspectOrder(
  orderId: string,
  deps: InspectDependencies,
): Promise<OperatorOrderDetailBody | undefined> {
  const record = await deps.records.view(orderId);
  if (record === undefined) return undefined;
  const first = Math.max(1, record.attempt - OPERATOR_MAX_ATTEMPTS_SHOWN + 1);
  const numbers = Array.from(
    { length: Math.max(0, record.attempt - first + 1) },
    (_, index) => first + index,
  );
  // The step runs of the most recent attempts only: one history (a page or two) per attempt read.
  const firstWithRuns = Math.max(1, record.attempt - OPERATOR_MAX_ATTEMPTS_WITH_RUNS + 1);
  const bounds = { pageSize: OPERATOR_HISTORY_PAGE_SIZE, maxPages: OPERATOR_HISTORY_MAX_PAGES };
  const [attempts, alerts] = await Promise.all([
    Promise.all(
      numbers.map(async (attempt): Promise<OperatorAttemptView> => {
        const executionName = instanceIdFor(orderId, attempt);
        const [execution, history] = await Promise.all([
          deps.executions.describe(executionName, record.workflowVersion),
          attempt >= firstWithRuns
            ? deps.executions.stepRuns(executionName, record.workflowVersion, bounds)
            : Promise.resolve(undefined),
        ]);
        const runs = {
          stepRuns: history?.runs ?? [],
          stepRunsRead:
            history === undefined
              ? StepRunsRead.NotRead
              : history.complete
                ? StepRunsRead.All
                : StepRunsRead.Truncated,
        };
        return execution === undefined
          ? { attempt, executionName, status: 'NotFound', ...runs }
          : { attempt, executionName, ...execution, ...runs };
      }),
    ),
    deps.alerts.alertsOf(orderId),
  ]);
  return { ...record, attempts, alerts };
}

// ---------------------------------------------------------------------------------------------
// Request validation
// ---------------------------------------------------------------------------------------------

const parseActionJson = jsonParser(OperatorActionRequestSchema);

export type Parsed<T> =
  | ({ readonly ok: true } & T)
  | { readonly ok: false; readonly message: string; readonly errors: readonly FieldError[] };

/** The body of POST retry/cancel, size checked before parsing (as POST /orders). */
export function parseOperatorActionBody(
  body: string | null | undefined,
  isBase64Encoded: boolean,
  maxBytes: number = MAX_OPERATOR_BODY_BYTES,
): Parsed<{ readonly request: OperatorActionRequest }> {
  if (body === null || body === undefined || body.length === 0) {
    return invalid('Request body is required', [{ path: BODY_PATH, message: 'is required' }]);
  }
  const tooLarge = () =>
    invalid(`Request body is larger than ${maxBytes} bytes`, [
      { path: BODY_PATH, message: `must be at most ${maxBytes} bytes` },
    ]);
  if (isBase64Encoded && Math.floor((body.length * 3) / 4) > maxBytes + 2) return tooLarge();
  const text = isBase64Encoded ? Buffer.from(body, 'base64').toString('utf8') : body;
  if (Buffer.byteLength(text, 'utf8') > maxBytes) return tooLarge();
  const parsed = parseActionJson(text);
  if (!parsed.ok) {
    return invalid(
      parsed.problem === 'not-json'
        ? 'Request body is not valid JSON'
        : 'Request body is not a valid operator action',
      parsed.errors,
    );
  }
  return { ok: true, request: parsed.value };
}

export interface OperatorListQuery {
  readonly state: ProcessState;
  readonly limit: number;
  readonly cursor?: string;
}

const PROCESS_STATES: readonly string[] = Object.values(ProcessState);
const LIMIT_PATTERN = /^[0-9]{1,3}$/;

/** `?state=<ProcessState>&limit=<1..100>&cursor=<opaque>`; state is required, every problem named. */
export function parseOperatorListQuery(
  query: Readonly<Record<string, string | undefined>> | null | undefined,
): Parsed<{ readonly query: OperatorListQuery }> {
  const errors: FieldError[] = [];
  const state = query?.state;
  if (state === undefined || state === '') {
    errors.push({ path: 'state', message: `is required: one of ${PROCESS_STATES.join(', ')}` });
  } else if (!PROCESS_STATES.includes(state)) {
    errors.push({ path: 'state', message: `must be one of ${PROCESS_STATES.join(', ')}` });
  }
  let limit = OPERATOR_LIST_DEFAULT_LIMIT;
  const rawLimit = query?.limit;
  if (rawLimit !== undefined) {
    limit = LIMIT_PATTERN.test(rawLimit) ? Number(rawLimit) : Number.NaN;
    if (!(limit >= 1 && limit <= OPERATOR_LIST_MAX_LIMIT)) {
      errors.push({ path: 'limit', message: `must be an integer from 1 to ${OPERATOR_LIST_MAX_LIMIT}` });
    }
  }
  const cursor = query?.cursor;
  if (cursor === '') errors.push({ path: 'cursor', message: 'must not be empty' });
  for (const key of Object.keys(query ?? {})) {
    if (!['state', 'limit', 'cursor'].includes(key)) {
      errors.push({ path: key, message: 'is not an allowed query parameter' });
    }
  }
  if (errors.length > 0) return invalid('Query is not valid', errors);
  return {
    ok: true,
    query: { state: state as ProcessState, limit, ...(cursor !== undefined && { cursor }) },
  };
}

function invalid(
  message: string,
  errors: readonly FieldError[],
): { ok: false; message: string; errors: readonly FieldError[] } {
  return { ok: false, message, errors };
}
