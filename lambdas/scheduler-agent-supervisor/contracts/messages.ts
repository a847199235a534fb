import * as z from 'zod';
import { ORDER_ID_PATTERN } from './api';

/** Start queue message: "please claim and start this order". Carries no state: the record decides. */
export const StartOrderMessageSchema = z
  .object({
    orderId: z.string().regex(ORDER_ID_PATTERN),
    /** Who asked: the submission, or the supervisor re-queuing an order nobody started. */
    reason: z.enum([
      'submitted',
      'supervisor-restart',
      'supervisor-retry',
      'operator-retry',
      'operator-cancel',
    ]),
    correlationId: z.string().min(1),
  })
  .strict();
export type StartOrderMessage = z.infer<typeof StartOrderMessageSchema>;

/**
 * Agent request message, sent by the state machine with sqs:sendMessage.waitForTaskToken.
 * The state machine builds it with JSONPath, so every field here is produced in ASL.
 */
export const AgentRequestSchema = z.object({
  taskToken: z.string().min(1),
  orderId: z.string().regex(ORDER_ID_PATTERN),
  step: z.string().min(1),
  /**
   * What to run: the step itself (`perform`), or its compensation (`compensate`), which calls the
   * step's compensation.operationPath with `undoes` = the key of the effect to undo.
   */
  action: z.enum(['perform', 'compensate']),
  /** The operation's name: the step's, or its compensation's (StepDefinition.compensation.name). */
  operation: z.string().min(1),
  /** Compensate only: idempotency key of the effect to undo (`<orderId>:<step>`). */
  undoes: z.string().min(1).optional(),
  /** Attempt-specific instance id (= execution name) that holds the lock. */
  instanceId: z.string().min(1),
  attempt: z.number().int().min(1),
  /**
   * Stable idempotency key: identical on every retry and every attempt (`<orderId>:<operation>`,
   * see operationKey), never derived from the task token. Sent downstream as the Idempotency-Key
   * header.
   */
  idempotencyKey: z.string().min(1),
  /** CompleteBy of this step in the store (epoch millis): no new side effect after it. */
  deadlineEpochMillis: z.number().int().positive(),
  /** When the callback task was entered (ISO) and its TimeoutSeconds: the task's own deadline. */
  taskEnteredAt: z.string().min(1),
  taskTimeoutSeconds: z.number().int().positive(),
  heartbeatSeconds: z.number().int().positive(),
  /** Remote calls allowed for this request (first call included). */
  maxCallAttempts: z.number().int().min(1),
  /**
   * Lean workflow versions only (contracts/workflows.ts, WorkflowShape), perform only: the agent marks
   * the step Running (transition progressStepRunning, fenced on `instanceId`) in the same conditional
   * write that reserves each call, instead of a `<Step>.MarkRunning` state before the request. A
   * failed fence ends the request with Agent.FencedOut and no call. Absent: the execution marked it.
   */
  markRunning: z.literal(true).optional(),
  /**
   * Compact workflow versions only, with markRunning: once its call succeeded, the agent records the
   * step Completed (transition completeStep, or completeOrder for the last step) in a fenced
   * conditional write before it answers. `seq` is the step's 1-based position (its compensation log
   * entry's Seq); `nextDeadlineEpochMillis` is the next step's planned deadline, which becomes
   * CompleteBy; `finishesOrder` marks the last step, whose write makes the order Processed.
   * Absent: the execution records the completion itself.
   */
  recordCompletion: z
    .union([
      z
        .object({ seq: z.number().int().min(1), nextDeadlineEpochMillis: z.number().int().positive() })
        .strict(),
      z.object({ seq: z.number().int().min(1), finishesOrder: z.literal(true) }).strict(),
    ])
    .optional(),
  /** Business payload the remote service needs. */
  order: z.object({
    customerId: z.string(),
    items: z.array(z.object({ sku: z.string(), quantity: z.number().int() })),
    totalCents: z.number().int(),
    currency: z.string(),
  }),
  correlationId: z.string().min(1),
});
export type AgentRequest = z.infer<typeof AgentRequestSchema>;

/**
 * Output an agent returns with SendTaskSuccess; stored as Steps.<step>.Result (perform) or
 * CompensationLog.<step>.Result (compensate).
 */
export interface AgentResult {
  readonly confirmationId: string;
  readonly service: string;
  readonly idempotencyKey: string;
  /** Compensate only: false when the service had nothing to undo (the effect was never recorded). */
  readonly undone?: boolean;
}

/** Error names an agent sends with SendTaskFailure; the state machine catches them by name. */
export const AgentError = {
  /** The remote service refused for good: the scheduler sets Error and alerts an operator. */
  Permanent: 'Agent.PermanentFailure',
  /** Transient errors outlasted the attempts or the deadline: the supervisor will retry. */
  TransientExhausted: 'Agent.TransientFailure',
  /**
   * The order's retry budget for this operation is spent (the record refused to reserve another
   * call): permanent, handled like Permanent, and named apart so the record and the alert say why.
   */
  RetryBudgetExhausted: 'Agent.RetryBudgetExhausted',
  /**
   * A `markRunning` request whose execution no longer holds the lock (a newer attempt, a finished
   * order): nothing was written and no call made; a lean execution ends FencedOut on it. Also a
   * `recordCompletion` request whose completion write found the lock gone after its call: the
   * effect is kept by the idempotency store for the next attempt, nothing else was written.
   */
  FencedOut: 'Agent.FencedOut',
} as const;

/** The agent errors the scheduler treats as permanent: it compensates (a step) or gives up (a compensation). */
export const PERMANENT_AGENT_ERRORS: readonly string[] = [
  AgentError.Permanent,
  AgentError.RetryBudgetExhausted,
];
