/**
 * What the order's timeline chart draws (issue 26, item 1), derived from the detail the page
 * already reads: one lane per attempt with its steps' calls as bars from start to end, one lane for
 * the compensation's calls, and the supervisor's resets, the operators' actions and the alerts as
 * marks on the time axis. Pure (no React, no DOM), so the unit tests read it directly and the SVG
 * (OrderChart.tsx) only places what this decides.
 */
import {
  type OperatorAttemptView,
  type OperatorOrderDetailBody,
  StepRunOutcome,
  StepRunsRead,
} from '../../lambdas/scheduler-agent-supervisor/contracts/api';
import { durationText } from './duration-text';
import { runEnd } from './timeline';

/** How a bar ended, which is its colour (Started: no end read yet). */
export type BarOutcome = 'completed' | 'failed' | 'timed-out' | 'compensated' | 'started';

export interface ChartBar {
  readonly id: string;
  readonly outcome: BarOutcome;
  readonly start: number;
  /** When the call ended, or, for one that had not, the attempt's end or the chart's. */
  readonly end: number;
  /** The bar in words: what was called, how it ended, when (hover, focus and screen readers). */
  readonly detail: string;
}

export interface ChartLane {
  readonly id: string;
  readonly label: string;
  readonly bars: readonly ChartBar[];
}

export interface ChartMark {
  readonly id: string;
  readonly kind: 'reset' | 'operator' | 'alert';
  readonly at: number;
  readonly detail: string;
}

export interface OrderChart {
  readonly lanes: readonly ChartLane[];
  readonly marks: readonly ChartMark[];
  /** Every stretch of time something happened in ([start, end], epoch ms): what the axis must show. */
  readonly spans: readonly (readonly [number, number])[];
}

const millis = (iso: string) => Date.parse(iso);

/** A bar's outcome: a compensation call that completed is a compensated step. */
function outcomeOf(action: string, outcome: StepRunOutcome): BarOutcome {
  if (outcome === StepRunOutcome.Started) return 'started';
  if (outcome === StepRunOutcome.TimedOut) return 'timed-out';
  if (outcome === StepRunOutcome.Failed) return 'failed';
  return action === 'compensate' ? 'compensated' : 'completed';
}

/** Every call of the attempts whose history inspect read, split into perform and compensate. */
function attemptBars(attempt: OperatorAttemptView, openEnd: number) {
  const perform: ChartBar[] = [];
  const compensate: ChartBar[] = [];
  attempt.stepRuns.forEach((run, index) => {
    const start = millis(run.startedAt);
    const ended = run.endedAt !== undefined && run.outcome !== StepRunOutcome.Started;
    const end =
      ended && run.endedAt ? millis(run.endedAt) : attempt.stopDate ? millis(attempt.stopDate) : openEnd;
    const what = ended
      ? runEnd(run)
      : `${run.action === 'compensate' ? 'undo ' : ''}${run.step} started, not ended`;
    const bar: ChartBar = {
      id: `attempt-${attempt.attempt}-${index}`,
      outcome: outcomeOf(run.action, run.outcome),
      start,
      end: Math.max(end, start),
      detail: `Attempt ${attempt.attempt}: ${what}; ${run.startedAt} to ${ended ? run.endedAt : '…'} (${durationText(end - start)})`,
    };
    (run.action === 'compensate' ? compensate : perform).push(bar);
  });
  return { perform, compensate };
}

/**
 * The supervisor's resets: an attempt after the first that no operator's retry or cancel started
 * began after the supervisor reset the one before (the record keeps no time of a reset, so the mark
 * stands at the new attempt's start: the reset was at the latest then). A supervisor's last error
 * (the threshold reached) has its own time.
 */
function resetMarks(order: OperatorOrderDetailBody): ChartMark[] {
  const marks: ChartMark[] = [];
  const actions = order.operatorLog.map((entry) => millis(entry.at));
  order.attempts.forEach((attempt, index) => {
    const before = order.attempts[index - 1];
    if (before?.startDate === undefined || attempt.startDate === undefined) return;
    const [from, to] = [millis(before.startDate), millis(attempt.startDate)];
    if (actions.some((at) => at > from && at <= to)) return;
    marks.push({
      id: `reset-${attempt.attempt}`,
      kind: 'reset',
      at: to,
      detail: `Supervisor reset attempt ${before.attempt} (by ${attempt.startDate}, when attempt ${attempt.attempt} started)`,
    });
  });
  const error = order.lastError;
  if (error?.source === 'supervisor')
    marks.push({
      id: 'supervisor-error',
      kind: 'reset',
      at: millis(error.at),
      detail: `Supervisor: ${error.error} at ${error.at} (${error.cause})`,
    });
  return marks;
}

/** The lanes, bars and marks of `order`'s chart; an attempt whose history was not read has an empty lane. */
export function orderChartOf(order: OperatorOrderDetailBody): OrderChart {
  const times = [
    order.createdAt,
    order.updatedAt,
    ...order.attempts.flatMap((attempt) => [attempt.startDate, attempt.stopDate]),
    ...order.attempts.flatMap((attempt) => attempt.stepRuns.flatMap((run) => [run.startedAt, run.endedAt])),
    ...order.alerts.map((alert) => alert.at),
    ...order.operatorLog.map((entry) => entry.at),
  ]
    .filter((at): at is string => at !== undefined)
    .map(millis)
    .filter((at) => !Number.isNaN(at));
  const from = Math.min(...times);
  // The chart's last moment: where a call or an attempt not ended yet is drawn to.
  const to = Math.max(...times, from + 1000);
  const lanes: ChartLane[] = [];
  const compensation: ChartBar[] = [];
  for (const attempt of order.attempts) {
    const { perform, compensate } = attemptBars(attempt, to);
    const unread = attempt.stepRunsRead === StepRunsRead.NotRead ? ' (step runs not read)' : '';
    lanes.push({
      id: `attempt-${attempt.attempt}`,
      label: `Attempt ${attempt.attempt}${unread}`,
      bars: perform,
    });
    compensation.push(...compensate);
  }
  if (compensation.length > 0) lanes.push({ id: 'compensation', label: 'Compensation', bars: compensation });
  const marks: ChartMark[] = [
    ...resetMarks(order),
    ...order.operatorLog.map((entry, index) => ({
      id: `operator-${index}`,
      kind: 'operator' as const,
      at: millis(entry.at),
      detail: `Operator ${entry.by} ${entry.action} at ${entry.at}: ${entry.seenState} → ${entry.newState} (“${entry.reason}”)`,
    })),
    ...order.alerts.map((alert) => ({
      id: `alert-${alert.eventId}`,
      kind: 'alert' as const,
      at: millis(alert.at),
      detail: `Alert ${alert.type} at ${alert.at}`,
    })),
  ];
  const instant = (at: number): readonly [number, number] => [at, at];
  const spans: (readonly [number, number])[] = [
    instant(millis(order.createdAt)),
    instant(millis(order.updatedAt)),
    ...order.attempts.flatMap((attempt): (readonly [number, number])[] =>
      attempt.startDate
        ? [[millis(attempt.startDate), attempt.stopDate ? millis(attempt.stopDate) : to]]
        : [],
    ),
    ...lanes.flatMap((lane) => lane.bars.map((bar): readonly [number, number] => [bar.start, bar.end])),
    ...marks.map((mark) => instant(mark.at)),
  ].filter(([start, end]) => !Number.isNaN(start) && !Number.isNaN(end));
  return { lanes, marks: marks.sort((left, right) => left.at - right.at), spans };
}
