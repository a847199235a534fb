/**
 * Where the scheduler's execution keeps what it receives and loads: one home for every JSONPath
 * the scheduler's states read or write. JSONPath only: the local engine (lib/local-runtime)
 * ignores JSONata and variables, so none are used.
 */
import {
  CompensationAttr,
  OrderAttr,
  StateAttr,
  StepAttr,
} from '../../../lambdas/scheduler-agent-supervisor/contracts';

/** Execution input fields (the starter's StartExecution input). */
export const ExecutionInput = {
  orderId: '$.orderId',
  /** The attempt-specific instance id holding the lock (also the execution name). */
  instanceId: '$.instanceId',
  attempt: '$.attempt',
  correlationId: '$.correlationId',
  /**
   * Lean versions only: the order as the agents take it (AgentRequest.order), put in the input by
   * the starter, so no LoadOrder task reads it (a classic execution loads it to WorkflowPath.order).
   */
  order: '$.order',
  /**
   * Compact versions only: the claimed record as GetItem would return it (`{ Item: ... }`, the
   * attributes RecordPath reads), put in the input by the starter, so no LoadStateRecord task reads
   * it; the same path LoadStateRecord's result takes (WorkflowPath.record).
   */
  record: '$.record',
} as const;

/** When the current state was entered: the time stamp of every store update. */
export const ENTERED_TIME = '$$.State.EnteredTime';

/** Where the execution keeps what it loaded and received. */
export const WorkflowPath = {
  /** GetItem output of the state record: `$.record.Item.<Attr>.<Type>`. */
  record: '$.record',
  item: '$.record.Item',
  /** GetItem output of the order (business database). */
  order: '$.order',
  /** Agent results by step name. */
  results: '$.results',
  /** Compensating agents' results by step name (kept apart: a step may be done and undone in one execution). */
  compensations: '$.compensations',
  /** Catch output of a permanent agent failure, and the step it came from. */
  error: '$.error',
  failedStep: '$.failedStep',
  abandoned: '$.abandoned',
  fencedOut: '$.fencedOut',
} as const;

const item = WorkflowPath.item;

/** Typed paths into the loaded state record (GetItem output keeps DynamoDB types). */
export const RecordPath = {
  lockedBy: `${item}.${StateAttr.LockedBy}.S`,
  processState: `${item}.${StateAttr.ProcessState}.S`,
  failureCount: `${item}.${StateAttr.FailureCount}.N`,
  compensationFailureCount: `${item}.${StateAttr.CompensationFailureCount}.N`,
  /** Status of a step as an earlier attempt left it. */
  stepStatus: (step: string) => `${item}.${StateAttr.Steps}.M.${step}.M.${StepAttr.Status}.S`,
  /**
   * The deadline of a step or of a compensation (by operation name) in the plan the starter wrote
   * at claim time (epoch millis, as text).
   */
  plannedDeadline: (operation: string) => `${item}.${StateAttr.Plan}.M.${operation}.N`,
  /** Status of a step's compensation log entry as the record was loaded. */
  compensationStatus: (step: string) =>
    `${item}.${StateAttr.CompensationLog}.M.${step}.M.${CompensationAttr.Status}.S`,
} as const;

/** Typed paths into the loaded order. */
export const OrderPath = {
  customerId: `${WorkflowPath.order}.Item.${OrderAttr.CustomerId}.S`,
  /** The items as stored: JSON text. */
  items: `${WorkflowPath.order}.Item.${OrderAttr.Items}.S`,
  totalCents: `${WorkflowPath.order}.Item.${OrderAttr.TotalCents}.N`,
  currency: `${WorkflowPath.order}.Item.${OrderAttr.Currency}.S`,
} as const;

/** Where a step's agent result lands (the SendTaskSuccess output). */
export const stepResultPath = (step: string): string => `${WorkflowPath.results}.${step}`;

/** Where the result of a step's compensation lands. */
export const compensationResultPath = (step: string): string => `${WorkflowPath.compensations}.${step}`;
