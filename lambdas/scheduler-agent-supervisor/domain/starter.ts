/**
 * The starter role: decides what a start message means for a record (claim the next attempt,
 * resume an existing claim, or skip), plans the attempt's per-step deadlines, and runs the claim
 * then StartExecution, giving the claim back when the execution cannot be started.
 */
import { type BackoffPolicy, type RandomSource, retryWithBackoff } from '../../shared/backoff';
import type { Clock, Sleep } from '../../shared/clock';
import { describeError } from '../../shared/errors';
import {
  type AgentRequest,
  isLeanShape,
  MAX_ORDER_BODY_BYTES,
  type OperationName,
  ProcessState,
  type StartOrderMessage,
  StepStatus,
  type WorkflowTimings,
  workflowShape,
  workflowSteps,
} from '../contracts';
import { MissingOrderError, UnknownOrderError } from './errors';
import { executionRecordItem } from './execution-record';
import type {
  ClaimStore,
  OrdersReader,
  ReleaseRequest,
  StateRecordReader,
  TransitionResult,
  WorkflowExecution,
  WorkflowStarter,
} from './ports';
import {
  assertRecordVersionLive,
  instanceIdFor,
  mayNeedCompensation,
  pendingCompleteBy,
  type StateRecord,
  stepStatusOf,
} from './state-record';

/**
 * Step Functions' limit on an execution's input (256 KiB). A lean version's input carries the order,
 * which the submission held to MAX_ORDER_BODY_BYTES (16 KiB) as a whole JSON body: the same fields
 * serialized again, plus ids of a few hundred bytes, stay far below it (checked anyway, see
 * workflowExecutionInput).
 */
export const MAX_EXECUTION_INPUT_BYTES = 256 * 1024;

export type ClaimTimings = Pick<
  WorkflowTimings,
  'stepTimeoutSeconds' | 'stepDeadlineSlackSeconds' | 'startGraceSeconds'
>;

export interface AttemptPlan {
  /**
   * CompleteBy of this attempt (epoch millis) per step and per compensation, written to the
   * record's Plan map (ASL has no clock arithmetic: every deadline an execution needs is planned).
   */
  readonly plan: Readonly<Partial<Record<OperationName, number>>>;
  /** CompleteBy of the record right after the claim: the deadline of the first step still to run. */
  readonly completeBy: number;
}

/** Wall-clock window one step may take, including the slack that keeps the supervisor off live tasks. */
export function stepWindowMillis(timings: ClaimTimings): number {
  return (timings.stepTimeoutSeconds + timings.stepDeadlineSlackSeconds) * 1000;
}

/**
 * Deadlines of an attempt. The k-th step still to run (k = 1..) must finish by claimedAt + k windows;
 * steps already completed by an earlier attempt are not redone, so they get claimedAt and no window.
 * When every step is already completed (an attempt died between the last step and MarkProcessed),
 * the record still gets one window so the supervisor does not expire the attempt at once.
 *
 * Then one deadline per compensation, after the steps' deadlines, in reverse step order (the order
 * they run in): an execution whose step fails for good compensates at once, in the same attempt,
 * and can only use deadlines written now. Every compensation gets a window, since any step that
 * completes in this attempt may have to be undone.
 */
export function planAttempt(
  record: Pick<StateRecord, 'steps' | 'workflowVersion'>,
  claimedAt: number,
  timings: ClaimTimings,
): AttemptPlan {
  const window = stepWindowMillis(timings);
  const plan: Partial<Record<OperationName, number>> = {};
  let remaining = 0;
  let firstDeadline: number | undefined;
  const steps = workflowSteps(record.workflowVersion);
  for (const step of steps) {
    if (stepStatusOf(record, step.name) === StepStatus.Completed) {
      plan[step.name] = claimedAt;
      continue;
    }
    remaining += 1;
    plan[step.name] = claimedAt + remaining * window;
    firstDeadline ??= plan[step.name];
  }
  const stepsEnd = claimedAt + remaining * window;
  [...steps].reverse().forEach((step, index) => {
    plan[step.compensation.name] = stepsEnd + (index + 1) * window;
  });
  return { plan, completeBy: firstDeadline ?? claimedAt + window };
}

/**
 * Deadlines of a compensation attempt (a claimed CompensationInProgress record): compensation
 * deadlines only, in reverse step order. The k-th compensation that may still have to run
 * (mayNeedCompensation) must finish by claimedAt + k windows; one already done gets claimedAt.
 * When none is left (nothing completed, or an attempt died before MarkCompensated), the record
 * still gets one window, as in planAttempt.
 */
export function planCompensation(
  record: Pick<StateRecord, 'steps' | 'compensationLog' | 'workflowVersion'>,
  claimedAt: number,
  timings: ClaimTimings,
): AttemptPlan {
  const window = stepWindowMillis(timings);
  const plan: Partial<Record<OperationName, number>> = {};
  let remaining = 0;
  let firstDeadline: number | undefined;
  for (const step of [...workflowSteps(record.workflowVersion)].reverse()) {
    if (!mayNeedCompensation(record, step.name)) {
      plan[step.compensation.name] = claimedAt;
      continue;
    }
    remaining += 1;
    plan[step.compensation.name] = claimedAt + remaining * window;
    firstDeadline ??= plan[step.compensation.name];
  }
  return { plan, completeBy: firstDeadline ?? claimedAt + window };
}

/**
 * How far apart the clocks of the starter, the supervisor and the scheduler may be: half the
 * per-step slack. This is the system's stated skew bound. The slack keeps the supervisor from
 * expiring a live task when its clock runs ahead; the same half-slack lets the starter accept a
 * retry whose back-off end was stamped by a supervisor running ahead of it.
 */
export function clockSkewToleranceMillis(timings: Pick<ClaimTimings, 'stepDeadlineSlackSeconds'>): number {
  return (timings.stepDeadlineSlackSeconds * 1000) / 2;
}

/**
 * Largest CompleteBy a Pending record may have and still be claimable now. A Pending CompleteBy is
 * "earliest start + startGrace" (see pendingCompleteBy), stamped with the writer's clock (the
 * supervisor's, for a retry), so the earliest start has passed when CompleteBy <= now + startGrace,
 * give or take the clock skew between the two. Without the tolerance, a supervisor whose clock runs
 * ahead re-queues the retry with a back-off end the starter sees as future, the starter drops the
 * message as too early, and the order cycles in Pending (found by the chaos campaign).
 */
export function latestClaimableCompleteBy(
  now: number,
  timings: Pick<ClaimTimings, 'startGraceSeconds' | 'stepDeadlineSlackSeconds'>,
): number {
  return now + timings.startGraceSeconds * 1000 + clockSkewToleranceMillis(timings);
}

export type ClaimDecision =
  | {
      readonly kind: 'claim';
      /** A Pending record (run the steps) or an unlocked CompensationInProgress one (undo them). */
      readonly claimKind: 'steps' | 'compensation';
      readonly seenAttempt: number;
      readonly attempt: number;
      readonly instanceId: string;
      readonly claimedAt: number;
      readonly claimableUntilCompleteBy: number;
      readonly workflowVersion: number;
      readonly plan: AttemptPlan['plan'];
      readonly completeBy: number;
    }
  | {
      /** Already claimed (a starter died between claim and StartExecution): start the same instance again. */
      readonly kind: 'resume';
      readonly instanceId: string;
      readonly attempt: number;
      readonly workflowVersion: number;
    }
  | {
      readonly kind: 'skip';
      readonly reason: 'in-back-off' | 'finished' | 'inconsistent';
      readonly detail: string;
    };

/** What a starter should do with a record it was asked to start. */
export function decideClaim(record: StateRecord, now: number, timings: ClaimTimings): ClaimDecision {
  switch (record.processState) {
    case ProcessState.Pending: {
      if (record.lockedBy !== undefined) {
        return skip('inconsistent', `Pending record is locked by '${record.lockedBy}'`);
      }
      const claimableUntil = latestClaimableCompleteBy(now, timings);
      if (record.attempt > 0 && record.completeBy > claimableUntil) {
        return skip('in-back-off', `retry back-off ends in ${record.completeBy - claimableUntil} ms`);
      }
      const attempt = record.attempt + 1;
      const { plan, completeBy } = planAttempt(record, now, timings);
      return {
        kind: 'claim',
        claimKind: 'steps',
        seenAttempt: record.attempt,
        attempt,
        instanceId: instanceIdFor(record.orderId, attempt),
        claimedAt: now,
        claimableUntilCompleteBy: claimableUntil,
        workflowVersion: record.workflowVersion,
        plan,
        completeBy,
      };
    }
    case ProcessState.CompensationInProgress: {
      if (record.lockedBy !== undefined) {
        // Claimed already (a starter died between claim and StartExecution): start it again.
        return {
          kind: 'resume',
          instanceId: record.lockedBy,
          attempt: record.attempt,
          workflowVersion: record.workflowVersion,
        };
      }
      // Unlocked: an operator cancel, or a supervisor reset after an expired compensation attempt
      // (its CompleteBy is then the end of the back-off plus the start grace, as for a Pending retry).
      const claimableUntil = latestClaimableCompleteBy(now, timings);
      if (record.completeBy > claimableUntil) {
        return skip('in-back-off', `compensation back-off ends in ${record.completeBy - claimableUntil} ms`);
      }
      const attempt = record.attempt + 1;
      const { plan, completeBy } = planCompensation(record, now, timings);
      return {
        kind: 'claim',
        claimKind: 'compensation',
        seenAttempt: record.attempt,
        attempt,
        instanceId: instanceIdFor(record.orderId, attempt),
        claimedAt: now,
        claimableUntilCompleteBy: claimableUntil,
        workflowVersion: record.workflowVersion,
        plan,
        completeBy,
      };
    }
    case ProcessState.Processing:
      if (record.lockedBy === undefined) {
        return skip('inconsistent', 'Processing record has no LockedBy');
      }
      return {
        kind: 'resume',
        instanceId: record.lockedBy,
        attempt: record.attempt,
        workflowVersion: record.workflowVersion,
      };
    default:
      return skip('finished', `record is ${record.processState}`);
  }
}

export type ClaimToStart = Extract<ClaimDecision, { readonly kind: 'claim' }>;

/**
 * Undoes a claim whose execution could not be started, so the order does not sit Processing until
 * the supervisor expires it and counts a failure for an attempt in which no step ran. The record
 * goes back to what a starter saw before the claim: Pending (or unlocked CompensationInProgress, for
 * a compensation claim), unlocked, the previous Attempt (the
 * next claim reuses this attempt's number, instance id and execution name) and FailureCount as it
 * was. CompleteBy = pendingCompleteBy(now): the redelivered start message can claim it at once,
 * and if that redelivery never comes the supervisor re-queues the order after the start grace.
 */
export function planRelease(
  orderId: string,
  claim: ClaimToStart,
  now: number,
  timings: Pick<ClaimTimings, 'startGraceSeconds'>,
): ReleaseRequest {
  return {
    kind: claim.claimKind,
    orderId,
    instanceId: claim.instanceId,
    attempt: claim.attempt,
    claimedAt: claim.claimedAt,
    restoredAttempt: claim.seenAttempt,
    completeBy: pendingCompleteBy(now, timings),
    at: now,
  };
}

function skip(reason: 'in-back-off' | 'finished' | 'inconsistent', detail: string): ClaimDecision {
  return { kind: 'skip', reason, detail };
}

/**
 * Input of the scheduler execution. It depends only on the claim and the start message, so a
 * redelivered message re-issuing StartExecution sends byte-identical input, which Step Functions
 * treats as the same request rather than a conflicting one.
 */
export function workflowExecutionInput(input: {
  readonly orderId: string;
  readonly instanceId: string;
  readonly attempt: number;
  readonly correlationId: string;
  readonly workflowVersion: number;
  /**
   * Lean versions only: the immutable order as the agents take it, so the execution needs no
   * LoadOrder task. Immutable, so a re-issued start still sends byte-identical input.
   * @default - none (a classic execution loads the order itself)
   */
  readonly order?: AgentRequest['order'];
  /**
   * Compact versions only: the claimed record as the state machine reads it (executionRecordItem),
   * at `$.record.Item`, so the execution needs no LoadStateRecord task.
   * @default - none (the execution loads the record itself)
   */
  readonly record?: Readonly<Record<string, unknown>>;
}): string {
  const text = JSON.stringify({
    orderId: input.orderId,
    instanceId: input.instanceId,
    attempt: input.attempt,
    correlationId: input.correlationId,
    workflowVersion: input.workflowVersion,
    ...(input.order !== undefined && { order: input.order }),
    ...(input.record !== undefined && { record: { Item: input.record } }),
  });
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > MAX_EXECUTION_INPUT_BYTES) {
    // Unreachable for an order the submission accepted (<= MAX_ORDER_BODY_BYTES); never truncate.
    throw new Error(
      `Execution input of '${input.instanceId}' is ${bytes} bytes, above Step Functions' ${MAX_EXECUTION_INPUT_BYTES} (orders are limited to ${MAX_ORDER_BODY_BYTES})`,
    );
  }
  return text;
}

/** The order a lean or compact version's execution gets in its input (undefined for a classic version). */
async function orderForInput(
  orderId: string,
  workflowVersion: number,
  orders: OrdersReader,
): Promise<AgentRequest['order'] | undefined> {
  if (!isLeanShape(workflowShape(workflowVersion))) return undefined;
  const order = await orders.get(orderId);
  if (order === undefined) throw new MissingOrderError(orderId);
  return {
    customerId: order.customerId,
    items: order.items.map((item) => ({ sku: item.sku, quantity: item.quantity })),
    totalCents: order.totalCents,
    currency: order.currency,
  };
}

/**
 * How hard the starter tries StartExecution before it gives the order back: 3 calls, full-jitter
 * delays from 250 ms doubling up to 1 s, and no try later than 2 s after the first. Short on
 * purpose: a blip of the Step Functions API is ridden out in-process, while a longer outage is
 * better handed to SQS redelivery and the supervisor than spent holding a claim in a Lambda
 * invocation.
 */
export const START_RETRY_POLICY: BackoffPolicy = {
  maxAttempts: 3,
  baseMillis: 250,
  capMillis: 1000,
  budgetMillis: 2000,
};

export interface StartRetryDependencies {
  readonly policy: BackoffPolicy;
  readonly sleep: Sleep;
  readonly random: RandomSource;
}

export interface StartDependencies {
  readonly states: StateRecordReader & ClaimStore;
  readonly workflow: WorkflowStarter;
  readonly clock: Clock;
  readonly timings: ClaimTimings;
  readonly retry: StartRetryDependencies;
  /** The workflow versions deployed here (each has a state machine); others are refused. */
  readonly liveWorkflowVersions: readonly number[];
  /** The business database: a lean version's execution gets the order in its input. */
  readonly orders: OrdersReader;
}

/**
 * What became of the claim after StartExecution kept failing: 'released' (back to Pending),
 * 'lost' (the record had moved on, left as it is), 'failed' (the release itself failed; the record
 * stays Processing and the supervisor expires it) or 'not-ours' (this call re-issued the start of
 * an earlier claim, which it does not own and so never releases).
 */
export type ClaimRelease =
  | { readonly kind: TransitionResult }
  | { readonly kind: 'failed'; readonly error: string }
  | { readonly kind: 'not-ours' };

export type StartOutcome =
  | {
      readonly kind: 'started';
      readonly instanceId: string;
      readonly attempt: number;
      /** True when this call won the claim; false when it re-issued the start of an earlier claim. */
      readonly claimed: boolean;
      /** True when Step Functions already had an execution of that name. */
      readonly alreadyStarted: boolean;
      readonly tries: number;
    }
  | {
      /** StartExecution failed on every try: the start message must be redelivered. */
      readonly kind: 'start-failed';
      readonly instanceId: string;
      readonly attempt: number;
      readonly tries: number;
      readonly error: string;
      readonly release: ClaimRelease;
    }
  | { readonly kind: 'claim-lost'; readonly instanceId: string }
  | { readonly kind: 'skipped'; readonly reason: string; readonly detail: string };

/**
 * Claims a Pending order for its next attempt and starts the scheduler execution named after the
 * attempt. The claim comes first so that only one starter owns an attempt; the execution name makes
 * a repeated start of that attempt (redelivery, a crash between claim and start) a no-op.
 *
 * If StartExecution keeps failing, a claim made here is released (see planRelease) before the
 * caller fails the message, so a flapping Step Functions API costs a redelivery, not a
 * FailureCount. The doubtful case is a StartExecution that did create the execution but whose
 * answer was lost. The release is fenced on "nothing has written the record since the claim"
 * (LockedBy, ProcessState, Attempt and the claim's UpdatedAt), so:
 * - if that execution already wrote (MarkRunning), the release loses and the live execution
 *   keeps its lock; the redelivery finds the record Processing and re-issues the same start.
 * - if the release wins, the execution is fenced out: its CheckLock or MarkRunning finds no lock
 *   (or another attempt's) and it ends in FencedOut having changed nothing. A compact execution
 *   gets the record in its input (no LoadStateRecord), so its CheckLock passes on the claim it was
 *   started with; its first write is fenced (the agent's reservation, or a compensation's store
 *   update), finds no lock and ends it in FencedOut the same way, with no call made.
 * - if the same attempt is claimed again before that execution reaches its fence, the lock carries
 *   the same instance id and the start the same name: it is the same attempt, and StartExecution
 *   of that name is idempotent, so one execution runs it. At worst the execution ended FencedOut
 *   before the re-claim; then the re-claim's start reports ExecutionAlreadyExists, nothing runs
 *   the attempt and the supervisor expires it like any abandoned attempt.
 * In no case does any step run twice, and agent calls are idempotent on order and step anyway.
 */
export async function startOrder(message: StartOrderMessage, deps: StartDependencies): Promise<StartOutcome> {
  const record = await deps.states.get(message.orderId);
  if (record === undefined) {
    throw new UnknownOrderError(message.orderId);
  }
  // Before any decision: a record of a retired or future version is never claimed or started on
  // another version's state machine; it is refused and left as it is (the message goes to the DLQ).
  assertRecordVersionLive(record, deps.liveWorkflowVersions);
  const now = deps.clock.now();
  const decision = decideClaim(record, now, deps.timings);

  if (decision.kind === 'skip') {
    return { kind: 'skipped', reason: decision.reason, detail: decision.detail };
  }

  // Read before claiming, so a missing order never leaves a claim behind it.
  const order = await orderForInput(record.orderId, decision.workflowVersion, deps.orders);

  if (decision.kind === 'claim') {
    const result = await deps.states.claim({
      kind: decision.claimKind,
      orderId: record.orderId,
      seenAttempt: decision.seenAttempt,
      attempt: decision.attempt,
      instanceId: decision.instanceId,
      claimableUntilCompleteBy: decision.claimableUntilCompleteBy,
      plan: decision.plan,
      completeBy: decision.completeBy,
      at: now,
    });
    if (result === 'lost') {
      return { kind: 'claim-lost', instanceId: decision.instanceId };
    }
  }

  const started = await startWithRetries(
    {
      name: decision.instanceId,
      input: workflowExecutionInput({
        orderId: record.orderId,
        instanceId: decision.instanceId,
        attempt: decision.attempt,
        correlationId: message.correlationId,
        workflowVersion: decision.workflowVersion,
        ...(order !== undefined && { order }),
        ...(workflowShape(decision.workflowVersion) === 'compact' && {
          record: executionRecordItem(record, decision),
        }),
      }),
      workflowVersion: decision.workflowVersion,
    },
    deps,
  );
  if (started.kind === 'started') {
    return {
      kind: 'started',
      instanceId: decision.instanceId,
      attempt: decision.attempt,
      claimed: decision.kind === 'claim',
      alreadyStarted: started.alreadyStarted,
      tries: started.tries,
    };
  }

  // A resumed claim belongs to whoever made it (maybe a starter still retrying): never release it.
  const release: ClaimRelease =
    decision.kind === 'claim'
      ? await releaseClaim(deps, planRelease(record.orderId, decision, deps.clock.now(), deps.timings))
      : { kind: 'not-ours' };
  return {
    kind: 'start-failed',
    instanceId: decision.instanceId,
    attempt: decision.attempt,
    tries: started.tries,
    error: started.error,
    release,
  };
}

type StartAttempts =
  | { readonly kind: 'started'; readonly alreadyStarted: boolean; readonly tries: number }
  | { readonly kind: 'failed'; readonly error: string; readonly tries: number };

async function startWithRetries(
  execution: WorkflowExecution,
  deps: StartDependencies,
): Promise<StartAttempts> {
  const result = await retryWithBackoff<'started' | 'already-started', string>(
    async () => {
      try {
        return { done: true, value: await deps.workflow.start(execution) };
      } catch (error) {
        return { done: false, failure: describeError(error) };
      }
    },
    { ...deps.retry, clock: deps.clock },
  );
  if (result.kind === 'done') {
    return { kind: 'started', alreadyStarted: result.value === 'already-started', tries: result.attempts };
  }
  return {
    kind: 'failed',
    // The start policy has no deadline, so at least one try was made and failed.
    error: result.lastFailure ?? 'StartExecution was not tried',
    tries: result.attempts,
  };
}

async function releaseClaim(deps: StartDependencies, request: ReleaseRequest): Promise<ClaimRelease> {
  try {
    return { kind: await deps.states.release(request) };
  } catch (error) {
    return { kind: 'failed', error: describeError(error) };
  }
}
