import {
  DescribeExecutionCommand,
  DescribeStateMachineForExecutionCommand,
  type HistoryEvent,
  type SFNClient,
} from '@aws-sdk/client-sfn';
import { hasErrorName } from '../../shared/errors';
import {
  type OperatorWorkflowExecution,
  type OperatorWorkflowStateRun,
  WORKFLOW_CAUSE_MAX_CHARS,
  WorkflowStateOutcome,
} from '../contracts';
import type { ExecutionWorkflows } from '../domain/ports';
import { SfnExecutionHistory } from './execution-history';
import { readExecutionHistory } from './execution-history-pages';

/**
 * Reads one execution for the workflow graph: DescribeExecution (status, times),
 * DescribeStateMachineForExecution (the definition that ran it: the version it started on, not the
 * state machine's current one) and GetExecutionHistory (paged, bounded, without execution data).
 * Needs those three actions on the state machines' executions only.
 */
export class SfnExecutionWorkflows implements ExecutionWorkflows {
  private readonly names: SfnExecutionHistory;

  /** @param stateMachines the state machine of each live workflow version */
  constructor(
    private readonly client: SFNClient,
    stateMachines: ReadonlyMap<number, string>,
  ) {
    this.names = new SfnExecutionHistory(client, stateMachines);
  }

  async workflow(
    name: string,
    workflowVersion: number,
    bounds: { readonly pageSize: number; readonly maxPages: number },
  ): Promise<OperatorWorkflowExecution | undefined> {
    const executionArn = this.names.executionArn(name, workflowVersion);
    if (executionArn === undefined) return undefined;
    try {
      const [execution, machine] = await Promise.all([
        this.client.send(new DescribeExecutionCommand({ executionArn })),
        this.client.send(new DescribeStateMachineForExecutionCommand({ executionArn })),
      ]);
      const history = await readExecutionHistory(this.client, executionArn, bounds);
      const status = execution.status ?? 'UNKNOWN';
      return {
        name,
        status,
        ...(execution.startDate && { startDate: execution.startDate.toISOString() }),
        ...(execution.stopDate && { stopDate: execution.stopDate.toISOString() }),
        definition: machine.definition ?? '',
        path: workflowPathOf(history.events, status === 'RUNNING'),
        pathComplete: history.complete,
      };
    } catch (error) {
      if (hasErrorName(error, 'ExecutionDoesNotExist')) return undefined;
      throw error;
    }
  }
}

const ENTERED = 'StateEntered';
const EXITED = 'StateExited';
const EXECUTION_ENDS = new Set(['ExecutionFailed', 'ExecutionTimedOut', 'ExecutionAborted']);

type MutableRun = { -readonly [K in keyof OperatorWorkflowStateRun]: OperatorWorkflowStateRun[K] } & {
  exited: boolean;
};

/** The error and cause an event's details carry (TaskFailed, TaskTimedOut, LambdaFunctionFailed, ExecutionFailed, ...). */
function failureOf(event: HistoryEvent): { error?: string; cause?: string } | undefined {
  for (const [key, value] of Object.entries(event)) {
    if (!key.endsWith('EventDetails') || typeof value !== 'object' || value === null) continue;
    const { error, cause } = value as { error?: unknown; cause?: unknown };
    if (typeof error === 'string' || typeof cause === 'string') {
      return {
        ...(typeof error === 'string' && { error }),
        ...(typeof cause === 'string' && { cause: cause.slice(0, WORKFLOW_CAUSE_MAX_CHARS) }),
      };
    }
  }
  return undefined;
}

/**
 * The states one execution entered, in order, each with how it ended. A state's task events join
 * it by previousEventId (AWS chains each state's events: TaskStateEntered <- TaskScheduled <- ...),
 * so branches running side by side keep theirs; a state entered right after another's exit is
 * that one's `next` (after a Catch too: a caught failure exits the state with the error). A state
 * not exited is Running while the execution runs, and Failed once it failed, timed out or was
 * stopped (with the execution's error when it has none of its own: a Fail state's).
 */
export function workflowPathOf(
  events: readonly HistoryEvent[],
  running: boolean,
): OperatorWorkflowStateRun[] {
  const runs: MutableRun[] = [];
  /** Event id -> index in runs, for each state's events. */
  const runOfEvent = new Map<number, number>();
  /** Exit event id -> the run it exited. */
  const exitOf = new Map<number, number>();
  let executionFailure: { error?: string; cause?: string } | undefined;
  for (const event of events) {
    const type = event.type ?? '';
    const id = event.id ?? -1;
    const at = event.timestamp?.toISOString() ?? '';
    if (type.endsWith(ENTERED)) {
      const name = event.stateEnteredEventDetails?.name ?? '?';
      const before = exitOf.get(event.previousEventId ?? -1);
      const previous = before === undefined ? undefined : runs[before];
      if (previous !== undefined && previous.next === undefined) previous.next = name;
      runOfEvent.set(id, runs.length);
      runs.push({
        name,
        type: type.slice(0, -ENTERED.length),
        outcome: WorkflowStateOutcome.Running,
        enteredAt: at,
        exited: false,
      });
      continue;
    }
    if (type.endsWith(EXITED)) {
      const name = event.stateExitedEventDetails?.name;
      // The latest run of that name still open (a loop enters a state again only after leaving it).
      const index = runs.findLastIndex((run) => run.name === name && !run.exited);
      const run = runs[index];
      if (run === undefined) continue;
      run.exited = true;
      run.exitedAt = at;
      runOfEvent.set(id, index);
      exitOf.set(id, index);
      continue;
    }
    if (EXECUTION_ENDS.has(type)) {
      executionFailure = failureOf(event) ?? {};
      continue;
    }
    const index = runOfEvent.get(event.previousEventId ?? -1);
    const run = index === undefined ? undefined : runs[index];
    if (index === undefined || run === undefined) continue;
    runOfEvent.set(id, index);
    // A retried task fails, then schedules again: only the last attempt's end counts.
    if (type.endsWith('Succeeded')) {
      delete run.error;
      delete run.cause;
      continue;
    }
    const failure = failureOf(event);
    if (failure !== undefined) {
      delete run.error;
      delete run.cause;
      Object.assign(run, failure);
    }
  }
  return runs.map(({ exited, ...run }) => {
    if (exited) {
      return {
        ...run,
        outcome: run.error === undefined ? WorkflowStateOutcome.Succeeded : WorkflowStateOutcome.Caught,
      };
    }
    if (running || executionFailure === undefined) return { ...run, outcome: WorkflowStateOutcome.Running };
    return {
      ...(run.error === undefined ? { ...run, ...executionFailure } : run),
      outcome: WorkflowStateOutcome.Failed,
    };
  });
}
