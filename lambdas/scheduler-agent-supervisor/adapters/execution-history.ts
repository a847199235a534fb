import { DescribeExecutionCommand, type HistoryEvent, type SFNClient } from '@aws-sdk/client-sfn';
import { hasErrorName } from '../../shared/errors';
import { agentCallOfStateName, type OperatorStepRunView, StepRunOutcome } from '../contracts';
import type { ExecutionHistory, ExecutionStepRuns, ExecutionSummary } from '../domain/ports';
import { readExecutionHistory } from './execution-history-pages';

/**
 * Reads the scheduler's executions by name (`<orderId>--attempt-<n>`). Needs only
 * states:DescribeExecution and states:GetExecutionHistory on the state machine's executions.
 */
export class SfnExecutionHistory implements ExecutionHistory {
  private readonly executionArnPrefixes = new Map<number, string>();

  /** @param stateMachines the state machine of each live workflow version */
  constructor(
    private readonly client: SFNClient,
    stateMachines: ReadonlyMap<number, string>,
  ) {
    for (const [version, stateMachineArn] of stateMachines) {
      // arn:<partition>:states:<region>:<account>:stateMachine:<name> -> ...:execution:<name>:
      const match = /^(arn:[^:]+:states:[^:]*:[^:]*):stateMachine:([^:]+)$/.exec(stateMachineArn);
      if (!match) throw new Error(`SfnExecutionHistory: '${stateMachineArn}' is not a state machine ARN`);
      this.executionArnPrefixes.set(version, `${match[1]}:execution:${match[2]}:`);
    }
  }

  /** undefined when the workflow version has no state machine here. */
  executionArn(name: string, workflowVersion: number): string | undefined {
    const prefix = this.executionArnPrefixes.get(workflowVersion);
    return prefix === undefined ? undefined : `${prefix}${name}`;
  }

  /** undefined when no such execution exists (never started, gone from the history, version not live). */
  async describe(name: string, workflowVersion: number): Promise<ExecutionSummary | undefined> {
    const executionArn = this.executionArn(name, workflowVersion);
    if (executionArn === undefined) return undefined;
    try {
      const result = await this.client.send(new DescribeExecutionCommand({ executionArn }));
      return {
        status: result.status ?? 'UNKNOWN',
        ...(result.startDate && { startDate: result.startDate.toISOString() }),
        ...(result.stopDate && { stopDate: result.stopDate.toISOString() }),
      };
    } catch (error) {
      if (hasErrorName(error, 'ExecutionDoesNotExist')) return undefined;
      throw error;
    }
  }

  /** The execution's agent calls, oldest first; undefined as for describe. */
  async stepRuns(
    name: string,
    workflowVersion: number,
    bounds: { readonly pageSize: number; readonly maxPages: number },
  ): Promise<ExecutionStepRuns | undefined> {
    const executionArn = this.executionArn(name, workflowVersion);
    if (executionArn === undefined) return undefined;
    try {
      const history = await readExecutionHistory(this.client, executionArn, bounds);
      return { runs: stepRunsOf(history.events), complete: history.complete };
    } catch (error) {
      if (hasErrorName(error, 'ExecutionDoesNotExist')) return undefined;
      throw error;
    }
  }
}

/** The task events that belong to the task state entered before them, and how each ends a run. */
const TASK_EVENT_OUTCOME: Readonly<Record<string, StepRunOutcome | null>> = {
  TaskScheduled: null,
  TaskStarted: null,
  TaskSubmitted: null,
  TaskSucceeded: StepRunOutcome.Completed,
  TaskFailed: StepRunOutcome.Failed,
  TaskStartFailed: StepRunOutcome.Failed,
  TaskSubmitFailed: StepRunOutcome.Failed,
  TaskTimedOut: StepRunOutcome.TimedOut,
};

/** The error name of a failed or timed-out task event. */
function errorOf(event: HistoryEvent): string | undefined {
  return (
    event.taskFailedEventDetails?.error ??
    event.taskStartFailedEventDetails?.error ??
    event.taskSubmitFailedEventDetails?.error ??
    event.taskTimedOutEventDetails?.error
  );
}

/**
 * The agent calls (`<Step>.CallAgent`, `<Step>.Undo.CallAgent`) of one execution's history, in the
 * order they were entered. A task event joins the run of the event its previousEventId names, as
 * AWS chains each state's events (TaskStateEntered <- TaskScheduled <- TaskStarted <- ...), so
 * the mapping holds for branches running side by side too; a run whose task never ended (the
 * execution stopped, or is still waiting) stays Started.
 */
export function stepRunsOf(events: readonly HistoryEvent[]): OperatorStepRunView[] {
  const runs: { -readonly [K in keyof OperatorStepRunView]: OperatorStepRunView[K] }[] = [];
  /** Event id -> index in runs, for the entry of an agent call and each task event after it. */
  const runOfEvent = new Map<number, number>();
  for (const event of events) {
    const at = event.timestamp?.toISOString();
    if (event.type === 'TaskStateEntered') {
      const call = agentCallOfStateName(event.stateEnteredEventDetails?.name ?? '');
      if (call === undefined || at === undefined) continue;
      runOfEvent.set(event.id ?? -1, runs.length);
      runs.push({ step: call.step, action: call.action, outcome: StepRunOutcome.Started, startedAt: at });
      continue;
    }
    const outcome = TASK_EVENT_OUTCOME[event.type ?? ''];
    const index = runOfEvent.get(event.previousEventId ?? -1);
    const run = index === undefined ? undefined : runs[index];
    if (outcome === undefined || index === undefined || run === undefined) continue;
    runOfEvent.set(event.id ?? -1, index);
    if (outcome === null) continue;
    // A retried task schedules again after its failure: the run's end is its last task end.
    run.outcome = outcome;
    if (at !== undefined) run.endedAt = at;
    const error = errorOf(event);
    if (error !== undefined) run.error = error;
    else delete run.error;
  }
  return runs;
}
