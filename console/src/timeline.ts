/**
 * The order view's timeline: attempts, step runs, compensations, alerts, operator actions and
 * client status messages, in time order. Pure (no React), so the unit tests read it directly.
 */
import {
  type OperatorAttemptView,
  type OperatorOrderDetailBody,
  type OperatorStepRunView,
  StepRunOutcome,
  StepRunsRead,
} from '../../lambdas/scheduler-agent-supervisor/contracts/api';
import { clientStatusFor } from '../../lambdas/scheduler-agent-supervisor/contracts/client-status';

export interface TimelineEntry {
  readonly at: string;
  readonly kind: 'attempt' | 'step' | 'compensation' | 'alert' | 'operator' | 'status';
  readonly text: string;
}

/** How a run's end reads, by action and outcome. */
export function runEnd(run: OperatorStepRunView): string {
  const error = run.error ? ` (${run.error})` : '';
  if (run.action === 'compensate') {
    return run.outcome === StepRunOutcome.Completed
      ? `${run.step}: compensated`
      : `undo ${run.step} ${run.outcome === StepRunOutcome.TimedOut ? 'timed out' : 'failed'}${error}`;
  }
  return run.outcome === StepRunOutcome.Completed
    ? `${run.step} completed`
    : `${run.step} ${run.outcome === StepRunOutcome.TimedOut ? 'timed out' : 'failed'}${error}`;
}

/** Every agent call of one attempt whose history inspect read (started, and how it ended). */
function runEntries(attempt: OperatorAttemptView): TimelineEntry[] {
  const entries: TimelineEntry[] = [];
  for (const run of attempt.stepRuns) {
    const kind = run.action === 'compensate' ? 'compensation' : 'step';
    const what = run.action === 'compensate' ? `undo ${run.step}` : run.step;
    entries.push({ at: run.startedAt, kind, text: `Attempt ${attempt.attempt}: ${what} started` });
    if (run.endedAt && run.outcome !== StepRunOutcome.Started)
      entries.push({ at: run.endedAt, kind, text: `Attempt ${attempt.attempt}: ${runEnd(run)}` });
  }
  return entries;
}

/**
 * The step and compensation entries of the state record: the latest run of each step only. Shown
 * when inspect read no attempt's history (e.g. an older backend), so the timeline never goes blank.
 */
function recordEntries(order: OperatorOrderDetailBody): TimelineEntry[] {
  const entries: TimelineEntry[] = [];
  for (const step of order.steps) {
    if (step.startedAt) entries.push({ at: step.startedAt, kind: 'step', text: `${step.name} started` });
    const ended = step.completedAt ?? step.endedAt;
    if (ended) {
      const how =
        step.status === 'Completed' || step.status === 'Compensated' || step.status === 'Compensating'
          ? 'completed'
          : step.status;
      const confirmed = step.confirmationId ? ` (confirmation ${step.confirmationId})` : '';
      entries.push({
        at: ended,
        kind: 'step',
        text: `${step.name} ${how === 'TimedOut' ? 'timed out' : how}${confirmed}`,
      });
    }
  }
  for (const entry of order.compensationLog) {
    const what = entry.compensation ?? `undo ${entry.step}`;
    if (entry.compensatingAt)
      entries.push({ at: entry.compensatingAt, kind: 'compensation', text: `${what} started` });
    if (entry.compensatedAt)
      entries.push({ at: entry.compensatedAt, kind: 'compensation', text: `${what}: compensated` });
  }
  return entries;
}

/** Attempts, step runs, compensations, alerts, operator actions and client status messages, in time order. */
export function timelineOf(order: OperatorOrderDetailBody): TimelineEntry[] {
  const entries: TimelineEntry[] = [
    { at: order.createdAt, kind: 'status', text: 'Order received (client told Received)' },
  ];
  const read = order.attempts.filter((attempt) => attempt.stepRunsRead !== StepRunsRead.NotRead);
  for (const attempt of order.attempts) {
    if (attempt.startDate) {
      entries.push({ at: attempt.startDate, kind: 'attempt', text: `Attempt ${attempt.attempt} started` });
      // Said at the attempt, so a reader knows what the steps below it leave out.
      if (read.length > 0 && attempt.stepRunsRead === StepRunsRead.NotRead)
        entries.push({
          at: attempt.startDate,
          kind: 'attempt',
          text: `Attempt ${attempt.attempt}: step runs not read (inspect reads the most recent attempts only)`,
        });
      if (attempt.stepRunsRead === StepRunsRead.Truncated)
        entries.push({
          at: attempt.startDate,
          kind: 'attempt',
          text: `Attempt ${attempt.attempt}: history longer than inspect reads, later step runs not shown`,
        });
    }
    if (attempt.stopDate)
      entries.push({
        at: attempt.stopDate,
        kind: 'attempt',
        text: `Attempt ${attempt.attempt} ended: ${attempt.status}`,
      });
  }
  entries.push(...(read.length > 0 ? read.flatMap(runEntries) : recordEntries(order)));
  for (const alert of order.alerts)
    entries.push({ at: alert.at, kind: 'alert', text: `Alert ${alert.type}` });
  for (const action of order.operatorLog)
    entries.push({
      at: action.at,
      kind: 'operator',
      text: `${action.by} ${action.action}: ${action.seenState} → ${action.newState} (“${action.reason}”)`,
    });
  const told = clientStatusFor(order.processState);
  if (told)
    entries.push({
      at: order.updatedAt,
      kind: 'status',
      text: `${order.processState} (client told ${told})`,
    });
  return entries.sort((left, right) => left.at.localeCompare(right.at));
}
