/**
 * The records of the supervisor-sweep figure (./supervisor-sweep.ts): the expired attempts the
 * supervisor must reset, and the finished orders around them, built by the wing's own rules (its
 * composition/state-records.ts: submission's new record and the starter's claim), then given the
 * states a sweep meets. Apart from the figure so its tests read them without the runtime.
 */
import {
  type CompensationEntry,
  claimedRecord,
  newOrderRecord,
  type StateRecord,
  type StepState,
} from '../../../lambdas/scheduler-agent-supervisor/composition/state-records';
import {
  admissionShardKey,
  CompensationStatus,
  ProcessState,
  type StepName,
  StepStatus,
  workflowSteps,
} from '../../../lambdas/scheduler-agent-supervisor/contracts';
import { isoAt } from '../../../lambdas/shared/clock';
import type { DeploymentConfig } from '../../scheduler-agent-supervisor/config';

const HOUR_MILLIS = 3_600_000;
const DAY_MILLIS = 24 * HOUR_MILLIS;

/**
 * The other records' states, one entry per record in turn: finished orders, mostly Processed, one in
 * twenty of each other terminal state. None carries DueShard (terminal records leave the index).
 */
const TERMINAL_MIX: readonly ProcessState[] = [
  ...Array.from({ length: 17 }, () => ProcessState.Processed),
  ProcessState.Compensated,
  ProcessState.Error,
  ProcessState.CompensationFailed,
];

/** A new order's record as submission writes it (Pending, in the DueIndex). */
function submittedRecord(orderId: string, createdAt: number, config: DeploymentConfig): StateRecord {
  const order = {
    orderId,
    customerId: `customer-${orderId}`,
    items: [
      { sku: 'SKU-1', quantity: 2 },
      { sku: 'SKU-2', quantity: 1 },
    ],
    totalCents: 4599,
    currency: 'EUR',
  };
  return newOrderRecord(order, createdAt, {
    timings: config.timings,
    dueShardCount: config.dueShardCount,
    clientId: config.clients[0]?.name,
    admissionShard: admissionShardKey(0),
    retryBudget: config.retryBudget.callsPerOperation,
    workflowVersion: config.workflow.current,
  });
}

/**
 * An expired attempt: claimed an hour ago, its first step still Running, its CompleteBy long past.
 * The supervisor resets it to Pending (FailureCount 1) and asks the starter again.
 */
export function expiredAttemptRecord(orderId: string, now: number, config: DeploymentConfig): StateRecord {
  const claimedAt = now - HOUR_MILLIS;
  const record = claimedRecord(
    submittedRecord(orderId, claimedAt - 1_000, config),
    claimedAt,
    config.timings,
  );
  const [first] = workflowSteps(record.workflowVersion);
  if (!first) throw new Error(`workflow version ${record.workflowVersion} has no steps`);
  return {
    ...record,
    runningStep: first.name,
    steps: { ...record.steps, [first.name]: { status: StepStatus.Running, startedAt: isoAt(claimedAt) } },
    callsMade: { [first.name]: 1 },
  };
}

/**
 * A finished order, a day old, with what its end leaves in the record: every step Completed
 * (Processed), or the steps before the last done and the last one TimedOut (Error) or Failed and
 * the done ones undone (Compensated) or one undo refused (CompensationFailed); a compensation log
 * entry per done step; no lock, no DueShard, no admission slot.
 */
export function terminalRecord(
  orderId: string,
  state: ProcessState,
  now: number,
  config: DeploymentConfig,
): StateRecord {
  const createdAt = now - DAY_MILLIS;
  const claimed = claimedRecord(
    submittedRecord(orderId, createdAt, config),
    createdAt + 1_000,
    config.timings,
  );
  const endedAt = isoAt(createdAt + 60_000);
  const steps = workflowSteps(claimed.workflowVersion);
  const done = state === ProcessState.Processed ? steps : steps.slice(0, -1);
  const last = steps[steps.length - 1];
  const undone = state === ProcessState.Compensated || state === ProcessState.CompensationFailed;
  const stepStates: Partial<Record<StepName, StepState>> = {};
  const compensationLog: Partial<Record<StepName, CompensationEntry>> = {};
  done.forEach((step, index) => {
    const refused = state === ProcessState.CompensationFailed && index === done.length - 1;
    stepStates[step.name] = {
      status: !undone
        ? StepStatus.Completed
        : refused
          ? StepStatus.CompensationFailed
          : StepStatus.Compensated,
      startedAt: endedAt,
      completedAt: endedAt,
      ...(undone && { endedAt }),
      result: { ConfirmationId: `${step.name}-${orderId}` },
    };
    compensationLog[step.name] = {
      seq: index + 1,
      compensation: step.compensation.name,
      undoes: `${orderId}:${step.name}`,
      confirmationId: `${step.name}-${orderId}`,
      status: !undone
        ? CompensationStatus.Recorded
        : refused
          ? CompensationStatus.Failed
          : CompensationStatus.Compensated,
      recordedAt: endedAt,
      ...(undone && { compensatingAt: endedAt, compensatedAt: endedAt }),
      ...(undone &&
        !refused && { result: { ConfirmationId: `${step.compensation.name}-${orderId}`, Undone: true } }),
    };
  });
  if (last && state !== ProcessState.Processed) {
    stepStates[last.name] = {
      status: state === ProcessState.Error ? StepStatus.TimedOut : StepStatus.Failed,
      startedAt: endedAt,
      endedAt,
    };
  }
  const failed = state !== ProcessState.Processed && state !== ProcessState.Compensated;
  return {
    ...claimed,
    processState: state,
    lockedBy: undefined,
    dueShard: undefined,
    admissionShard: undefined,
    steps: { ...claimed.steps, ...stepStates },
    compensationLog,
    failureCount: state === ProcessState.Error ? config.timings.maxFailures : 0,
    callsMade: Object.fromEntries(steps.map((step) => [step.name, 1])),
    updatedAt: endedAt,
    ...(failed && {
      lastError: { source: 'supervisor', error: `${state}Reached`, cause: 'attempts exhausted', at: endedAt },
    }),
  };
}

/** The records of one table: the `due` expired ones (the same ids in every table) and `others` finished ones. */
export function sweepTableRecords(
  sizes: { readonly due: number; readonly others: number },
  now: number,
  config: DeploymentConfig,
): { readonly due: readonly StateRecord[]; readonly others: readonly StateRecord[] } {
  return {
    due: Array.from({ length: sizes.due }, (_, index) =>
      expiredAttemptRecord(`bench-due-${index}`, now, config),
    ),
    others: Array.from({ length: sizes.others }, (_, index) =>
      terminalRecord(
        `bench-done-${index}`,
        TERMINAL_MIX[index % TERMINAL_MIX.length] as ProcessState,
        now,
        config,
      ),
    ),
  };
}
