/**
 * What an agent does with one AgentRequest, independent of AWS: when it must stop (deadline), how
 * it retries (full-jitter exponential back-off inside the deadline and the call budget), how it
 * reads a remote answer (success / permanent / transient), and how the outcome maps to the task
 * callback. Time, randomness, the remote call and the callbacks are injected, so every rule here is
 * unit-tested without timers or network.
 */
import {
  type BackoffCurve,
  type GiveUpReason,
  type RandomSource,
  retryWithBackoff,
} from '../../shared/backoff';
import type { Clock, Sleep } from '../../shared/clock';
import {
  AgentError,
  type AgentRequest,
  type AgentResult,
  KNOWN_WORKFLOW_VERSIONS,
  operationKey,
  type RemoteCompensationRequest,
  type RemoteOperationRequest,
  type StepDefinition,
  stepDefinition,
  type WorkflowTimings,
  workflowSteps,
} from '../contracts';
import type { CallResult } from './call-result';
import {
  ConcurrentDeliveryError,
  IdempotencyKeyReusedError,
  InvalidAgentRequestError,
  RemoteCallFailedError,
} from './errors';
import type {
  CallBudget,
  CallbackDelivery,
  CallReservation,
  Heartbeats,
  MarkStepRunning,
  RemoteOutcome,
  RemoteService,
  StepCompletions,
  TaskCallbacks,
} from './ports';
import { assertCompletionPort, completionRefusal, recordCompletion } from './step-completion';

/** What a request asks the agent to run: the step itself, or its compensation. */
export type AgentAction = AgentRequest['action'];

// ---------------------------------------------------------------------------------------------
// Deadline and per-call timeout
// ---------------------------------------------------------------------------------------------

/**
 * The agent must not start a side effect after this instant (epoch millis): the earlier of the
 * step's CompleteBy in the store and the callback task's own timeout. Either one passing means
 * nobody will accept the answer, and the supervisor may already be handing the order to a new
 * attempt.
 */
export function effectiveDeadline(
  request: Pick<AgentRequest, 'deadlineEpochMillis' | 'taskEnteredAt' | 'taskTimeoutSeconds'>,
): number {
  const enteredAt = Date.parse(request.taskEnteredAt);
  if (Number.isNaN(enteredAt)) {
    throw new InvalidAgentRequestError(
      `taskEnteredAt '${request.taskEnteredAt}' is not an ISO-8601 timestamp`,
    );
  }
  return Math.min(request.deadlineEpochMillis, enteredAt + request.taskTimeoutSeconds * 1000);
}

/** A call may take all the time left before the deadline, and no more. */
export function perCallTimeoutMillis(now: number, deadline: number): number {
  return Math.max(0, deadline - now);
}

/** Heartbeats go out at half the task's HeartbeatSeconds, so one late beat never times it out. */
export function heartbeatIntervalMillis(heartbeatSeconds: number): number {
  return (heartbeatSeconds * 1000) / 2;
}

// ---------------------------------------------------------------------------------------------
// Remote outcomes
// ---------------------------------------------------------------------------------------------

export type OutcomeClass = 'success' | 'permanent' | 'transient';

/**
 * 2xx success; 408, 429 and 5xx transient (the service may answer differently later); every other
 * status permanent (4xx: the request itself is refused; 1xx/3xx: not this API's contract, and a
 * retry would get the same). Network errors and timeouts are transient.
 */
export function classifyOutcome(outcome: RemoteOutcome): OutcomeClass {
  if (outcome.kind !== 'response') return 'transient';
  const { status } = outcome;
  if (status >= 200 && status < 300) return 'success';
  if (status === 408 || status === 429 || status >= 500) return 'transient';
  return 'permanent';
}

export function describeOutcome(outcome: RemoteOutcome): string {
  switch (outcome.kind) {
    case 'network-error':
      return `network error: ${outcome.message}`;
    case 'timeout':
      return `no answer within ${outcome.afterMillis} ms`;
    case 'response': {
      const message =
        typeof outcome.body === 'object' && outcome.body !== null && 'message' in outcome.body
          ? `: ${String((outcome.body as { message: unknown }).message)}`
          : '';
      return `HTTP ${outcome.status}${message}`;
    }
  }
}

function confirmationIdOf(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const value = (body as { confirmationId?: unknown }).confirmationId;
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function undoneOf(body: unknown): boolean | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const value = (body as { undone?: unknown }).undone;
  return typeof value === 'boolean' ? value : undefined;
}

/**
 * Reads a 2xx answer: a confirmationId always, and for a compensation whether anything was undone.
 * Returns what is missing when the answer breaks the contract.
 */
function successOf(
  body: unknown,
  action: AgentAction,
): { readonly confirmationId: string; readonly undone?: boolean } | { readonly missing: string } {
  const confirmationId = confirmationIdOf(body);
  if (!confirmationId) return { missing: 'a confirmationId' };
  if (action === 'perform') return { confirmationId };
  const undone = undoneOf(body);
  if (undone === undefined) return { missing: 'a boolean undone' };
  return { confirmationId, undone };
}

// ---------------------------------------------------------------------------------------------
// Calling with retries
// ---------------------------------------------------------------------------------------------

export interface CallObserver {
  onCall?(callNumber: number): void;
  onRetry?(detail: {
    readonly callNumber: number;
    readonly delayMillis: number;
    readonly failure: string;
  }): void;
}

/**
 * Calls the remote service until it succeeds, refuses for good, the call budget is spent or the
 * deadline comes. Each call gets the time left before the deadline as its timeout, and no call
 * starts at or after the deadline (including the first).
 */
export async function callWithRetries(
  callOnce: (timeoutMillis: number) => Promise<RemoteOutcome>,
  settings: {
    readonly deadline: number;
    readonly maxCallAttempts: number;
    readonly backoff: BackoffCurve;
    /** How a 2xx answer is read (a compensation must say whether it undid anything). @default 'perform' */
    readonly action?: AgentAction;
    /**
     * Reserves each call before it is made; a refusal ends the request (budget-exhausted) without
     * the call. @default - no reservation (only callers outside an agent omit it)
     */
    readonly reserve?: () => Promise<CallReservation>;
  },
  deps: { readonly clock: Clock; readonly sleep: Sleep; readonly random: RandomSource },
  observer: CallObserver = {},
): Promise<CallResult> {
  const result = await retryWithBackoff<CallResult, string>(
    async ({ attempt, now }) => {
      const reservation = settings.reserve ? await settings.reserve() : { kind: 'reserved' as const };
      if (reservation.kind === 'exhausted') {
        const detail = `retry budget exhausted: ${reservation.callsMade} of ${reservation.budget} calls already made for this operation of the order`;
        return { done: true, value: { kind: 'budget-exhausted', detail, calls: attempt - 1 } };
      }
      if (reservation.kind === 'fenced') {
        return { done: true, value: { kind: 'fenced', detail: reservation.detail, calls: attempt - 1 } };
      }
      observer.onCall?.(attempt);
      const outcome = await callOnce(perCallTimeoutMillis(now, settings.deadline));
      const outcomeClass = classifyOutcome(outcome);
      if (outcomeClass === 'transient') return { done: false, failure: describeOutcome(outcome) };
      if (outcomeClass === 'permanent') {
        return { done: true, value: { kind: 'permanent', detail: describeOutcome(outcome), calls: attempt } };
      }
      const success = successOf(
        outcome.kind === 'response' ? outcome.body : undefined,
        settings.action ?? 'perform',
      );
      if (!('missing' in success))
        return { done: true, value: { kind: 'success', ...success, calls: attempt } };
      // The call may have had its effect, but the answer breaks the contract; retrying with the
      // same key would replay the same answer, so an operator has to look.
      return {
        done: true,
        value: {
          kind: 'permanent',
          detail: `${describeOutcome(outcome)} without ${success.missing} in the body`,
          calls: attempt,
        },
      };
    },
    {
      policy: {
        ...settings.backoff,
        maxAttempts: settings.maxCallAttempts,
        deadlineEpochMillis: settings.deadline,
      },
      clock: deps.clock,
      sleep: deps.sleep,
      random: deps.random,
      onRetry: ({ attempt, delayMillis, failure }) =>
        observer.onRetry?.({ callNumber: attempt, delayMillis, failure }),
    },
  );
  if (result.kind === 'done') return result.value;
  return {
    kind: 'transient',
    reason: result.reason,
    detail: result.lastFailure ?? 'the deadline had passed before the first call',
    calls: result.attempts,
  };
}

// ---------------------------------------------------------------------------------------------
// One request, end to end
// ---------------------------------------------------------------------------------------------

/** What the idempotent remote call is keyed and validated on: stable across retries and attempts. */
export interface RemoteCallInput {
  readonly idempotencyKey: string;
  readonly orderId: string;
  readonly step: string;
  readonly action: AgentAction;
  /** The step's name (perform) or its compensation's name (compensate). */
  readonly operation: string;
  /** Compensate only: the key of the effect to undo. */
  readonly undoes?: string;
  readonly correlationId: string;
  readonly order: AgentRequest['order'];
  readonly deadline: number;
  readonly maxCallAttempts: number;
  /** Lean versions: every reservation also marks the step Running, fenced. @default - count only */
  readonly markRunning?: MarkStepRunning;
}

export type AgentOutcome =
  | { readonly kind: 'succeeded'; readonly result: AgentResult; readonly delivery: CallbackDelivery }
  | {
      readonly kind: 'failed';
      readonly error: (typeof AgentError)[keyof typeof AgentError];
      readonly reason: 'permanent' | 'budget-exhausted' | 'fenced' | GiveUpReason;
      readonly cause: string;
      readonly delivery: CallbackDelivery;
    };

/** How an agent waits for another delivery that holds the key: jittered, and only before the deadline. */
export interface ConcurrentDeliveryWait {
  readonly clock: Clock;
  readonly sleep: Sleep;
  readonly random: RandomSource;
  readonly backoff: BackoffCurve;
}

/**
 * Calls through the idempotent port; while another delivery holds the key (mid-call, or a crashed
 * invocation whose in-progress record has not expired yet) waits with full-jitter back-off and asks
 * again, as long as the next try would start before the deadline. Waiting here rather than
 * bouncing the message back to SQS matters: a redelivery comes back only after the queue's
 * visibility timeout (6x the function timeout), long after the task has timed out.
 */
async function callWaitingForConcurrentDelivery(
  input: RemoteCallInput,
  call: (input: RemoteCallInput) => Promise<AgentResult>,
  wait: ConcurrentDeliveryWait,
): Promise<AgentResult> {
  const result = await retryWithBackoff<AgentResult, string>(
    async () => {
      try {
        return { done: true, value: await call(input) };
      } catch (error) {
        if (!(error instanceof ConcurrentDeliveryError)) throw error;
        return { done: false, failure: error.message };
      }
    },
    {
      // At least 1 ms: this loop polls another delivery's progress and must yield to it.
      policy: { ...wait.backoff, minDelayMillis: 1, deadlineEpochMillis: input.deadline },
      // Asking again makes no call of its own (the idempotent port applies the deadline to the
      // remote call), and an answer stored by the other delivery is still worth returning.
      attemptsRespectDeadline: false,
      clock: wait.clock,
      sleep: wait.sleep,
      random: wait.random,
    },
  );
  if (result.kind === 'done') return result.value;
  throw new RemoteCallFailedError({
    kind: 'transient',
    reason: result.reason,
    detail: result.lastFailure ?? `idempotency key '${input.idempotencyKey}' stayed held`,
    calls: 0,
  });
}

/**
 * Handles one agent request: calls the remote service through the idempotent port (one downstream
 * effect per key however often the request is delivered), heartbeating the CURRENT delivery's task
 * token meanwhile, and answers that token with the result or the failure. When another delivery
 * holds the key, it waits for it inside the deadline and then answers with the stored result.
 *
 * Throws (so the message is redelivered) when the idempotency store or a callback fails for a
 * reason other than the task being gone.
 */
export async function handleAgentRequest(
  request: AgentRequest,
  ports: {
    readonly callRemoteIdempotently: (input: RemoteCallInput) => Promise<AgentResult>;
    readonly callbacks: TaskCallbacks;
    readonly heartbeats: Heartbeats;
    readonly concurrentDeliveryWait: ConcurrentDeliveryWait;
    /**
     * Where a compact version's request records its step Completed (AgentRequest.recordCompletion).
     * @default - none: a request with recordCompletion then fails (a wiring error), before any call
     */
    readonly completions?: StepCompletions;
  },
): Promise<AgentOutcome> {
  const input: RemoteCallInput = {
    idempotencyKey: request.idempotencyKey,
    orderId: request.orderId,
    step: request.step,
    action: request.action,
    operation: request.operation,
    ...(request.undoes !== undefined && { undoes: request.undoes }),
    correlationId: request.correlationId,
    order: request.order,
    deadline: effectiveDeadline(request),
    maxCallAttempts: request.maxCallAttempts,
    ...(request.markRunning === true &&
      request.action === 'perform' && {
        markRunning: {
          instanceId: request.instanceId,
          step: request.step,
          // The step's planned deadline: what a classic <Step>.MarkRunning writes as CompleteBy.
          completeBy: request.deadlineEpochMillis,
        },
      }),
  };
  const { completions } = ports;
  assertCompletionPort(request, completions);
  const stopHeartbeats = ports.heartbeats.start(
    request.taskToken,
    heartbeatIntervalMillis(request.heartbeatSeconds),
  );
  let result: AgentResult;
  try {
    result = await callWaitingForConcurrentDelivery(
      input,
      ports.callRemoteIdempotently,
      ports.concurrentDeliveryWait,
    );
    // Outside the idempotent call, so every delivery that gets the result (a redelivery's stored
    // one included) writes it; a second write is a no-op (already-recorded).
    const fenced = await recordCompletion(request, result, completions);
    if (fenced !== undefined) {
      const delivery = await ports.callbacks.fail(request.taskToken, AgentError.FencedOut, fenced);
      return { kind: 'failed', error: AgentError.FencedOut, reason: 'fenced', cause: fenced, delivery };
    }
  } catch (error) {
    const failure = failureFor(error);
    if (!failure) throw error;
    const delivery = await ports.callbacks.fail(request.taskToken, failure.error, failure.cause);
    return { kind: 'failed', ...failure, delivery };
  } finally {
    stopHeartbeats();
  }
  const delivery = await ports.callbacks.succeed(request.taskToken, result);
  return { kind: 'succeeded', result, delivery };
}

type AgentFailure = Omit<Extract<AgentOutcome, { kind: 'failed' }>, 'kind' | 'delivery'>;

function failureFor(error: unknown): AgentFailure | undefined {
  if (error instanceof RemoteCallFailedError) {
    const { result } = error;
    if (result.kind === 'permanent') {
      return { error: AgentError.Permanent, reason: 'permanent', cause: result.detail };
    }
    if (result.kind === 'budget-exhausted') {
      return { error: AgentError.RetryBudgetExhausted, reason: 'budget-exhausted', cause: result.detail };
    }
    if (result.kind === 'fenced') {
      return { error: AgentError.FencedOut, reason: 'fenced', cause: result.detail };
    }
    return {
      error: AgentError.TransientExhausted,
      reason: result.reason,
      cause: `${result.reason === 'deadline' ? 'deadline reached' : `all ${result.calls} calls failed`}; last failure: ${result.detail}`,
    };
  }
  if (error instanceof IdempotencyKeyReusedError) {
    return { error: AgentError.Permanent, reason: 'permanent', cause: error.message };
  }
  return undefined;
}

/**
 * The function the idempotency layer wraps: calls the step's remote operation (or its compensation)
 * with retries and returns the AgentResult, or throws RemoteCallFailedError so that no idempotency
 * record survives a failed call (the next delivery or attempt calls again, and the service's own
 * de-duplication on the Idempotency-Key returns the effect, or the undo, if the failed call had one).
 */
export async function callRemoteOperation(
  input: RemoteCallInput,
  deps: {
    readonly remote: RemoteService;
    /** Every call is reserved against the order's retry budget first. */
    readonly budget: CallBudget;
    readonly backoff: BackoffCurve;
    readonly clock: Clock;
    readonly sleep: Sleep;
    readonly random: RandomSource;
    readonly observer?: CallObserver;
  },
): Promise<AgentResult> {
  const operation = resolveAgentOperation(input);
  const body: RemoteOperationRequest | RemoteCompensationRequest =
    operation.action === 'compensate'
      ? { orderId: input.orderId, undoes: operation.undoes }
      : { orderId: input.orderId, ...input.order };
  const result = await callWithRetries(
    (timeoutMillis) =>
      deps.remote.post({
        path: operation.operationPath,
        idempotencyKey: input.idempotencyKey,
        correlationId: input.correlationId,
        body,
        timeoutMillis,
      }),
    {
      deadline: input.deadline,
      maxCallAttempts: input.maxCallAttempts,
      backoff: deps.backoff,
      action: operation.action,
      reserve: () =>
        deps.budget.reserve({
          orderId: input.orderId,
          operation: input.operation,
          ...(input.markRunning !== undefined && { markRunning: input.markRunning }),
        }),
    },
    deps,
    deps.observer,
  );
  if (result.kind !== 'success') throw new RemoteCallFailedError(result);
  return {
    confirmationId: result.confirmationId,
    service: operation.service,
    idempotencyKey: input.idempotencyKey,
    ...(result.undone !== undefined && { undone: result.undone }),
  };
}

/** The service a step's agent calls, and where; an unknown step makes the request invalid. */
export function remoteOperationFor(step: string): {
  readonly service: string;
  readonly operationPath: string;
} {
  const definition = knownStep(step);
  return { service: definition.service, operationPath: definition.operationPath };
}

/** An agent request checked against the step list: what to call, where, and for which effect. */
export type AgentOperation =
  | {
      readonly action: 'perform';
      readonly step: string;
      readonly service: string;
      readonly operationPath: string;
    }
  | {
      readonly action: 'compensate';
      readonly step: string;
      readonly service: string;
      /** The compensation's operation name, e.g. RefundPayment. */
      readonly compensation: string;
      readonly operationPath: string;
      /** Key of the effect to undo: always the step's own key for this order. */
      readonly undoes: string;
    };

/**
 * Checks that a request names an operation of its step and resolves where to send it; anything
 * else makes the request invalid (it is rejected, never sent downstream):
 * - perform: `operation` is the step itself, and nothing is undone;
 * - compensate: `operation` is the step's compensation, `undoes` is the step's key for this order
 *   (an agent never undoes another order's or another step's effect), and `idempotencyKey` is the
 *   compensation's own key. Sharing the step's key would make the idempotency layer replay the
 *   step's stored result (a charge) as the compensation's (a refund), and the downstream would
 *   de-duplicate the undo against the effect.
 */
export function resolveAgentOperation(
  request: Pick<AgentRequest, 'orderId' | 'step' | 'action' | 'operation' | 'undoes' | 'idempotencyKey'> & {
    readonly markRunning?: unknown;
    readonly recordCompletion?: AgentRequest['recordCompletion'];
  },
): AgentOperation {
  const definition = knownStep(request.step);
  const refusal = completionRefusal({ ...request, step: definition.name });
  if (refusal !== undefined) throw new InvalidAgentRequestError(refusal);
  if (request.action === 'perform') {
    if (request.operation !== definition.name) {
      throw new InvalidAgentRequestError(
        `a perform request for step '${definition.name}' names operation '${request.operation}'`,
      );
    }
    if (request.undoes !== undefined) {
      throw new InvalidAgentRequestError(
        `a perform request for step '${definition.name}' carries undoes '${request.undoes}' (only a compensation undoes)`,
      );
    }
    return {
      action: 'perform',
      step: definition.name,
      service: definition.service,
      operationPath: definition.operationPath,
    };
  }
  const { compensation } = definition;
  if (request.operation !== compensation.name) {
    throw new InvalidAgentRequestError(
      `a compensate request for step '${definition.name}' names operation '${request.operation}', not its compensation '${compensation.name}'`,
    );
  }
  const expectedUndoes = operationKey(request.orderId, definition.name);
  if (request.undoes !== expectedUndoes) {
    throw new InvalidAgentRequestError(
      request.undoes === undefined
        ? `a compensate request for step '${definition.name}' lacks undoes (expected '${expectedUndoes}')`
        : `a compensate request for step '${definition.name}' undoes '${request.undoes}', not the step's key '${expectedUndoes}'`,
    );
  }
  const expectedKey = operationKey(request.orderId, compensation.name);
  if (request.idempotencyKey !== expectedKey) {
    throw new InvalidAgentRequestError(
      `a compensate request for step '${definition.name}' has idempotency key '${request.idempotencyKey}', not the compensation's key '${expectedKey}'`,
    );
  }
  return {
    action: 'compensate',
    step: definition.name,
    service: definition.service,
    compensation: compensation.name,
    operationPath: compensation.operationPath,
    undoes: expectedUndoes,
  };
}

function knownStep(step: string): StepDefinition {
  try {
    return stepDefinition(step);
  } catch (error) {
    throw new InvalidAgentRequestError((error as Error).message);
  }
}

/**
 * How long the idempotency store keeps a completed call: long enough to cover every attempt the
 * supervisor can still make for the order (each attempt may run every step of the longest workflow
 * version to its deadline and then wait out the longest back-off), and never less than an hour.
 */
export function idempotencyRetentionSeconds(timings: WorkflowTimings): number {
  const longestWorkflow = Math.max(
    ...KNOWN_WORKFLOW_VERSIONS.map((version) => workflowSteps(version).length),
  );
  const attemptSeconds =
    longestWorkflow * (timings.stepTimeoutSeconds + timings.stepDeadlineSlackSeconds) +
    Math.max(timings.retryBackoffSeconds, timings.extendedBackoffSeconds) +
    timings.startGraceSeconds;
  return Math.max(3600, timings.maxFailures * attemptSeconds);
}
