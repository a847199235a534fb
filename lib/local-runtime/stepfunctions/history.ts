/**
 * The event history of one execution, in AWS's shapes (GetExecutionHistory): ExecutionStarted, the
 * state events (`<Type>StateEntered`/`Exited`, Parallel/Map started/succeeded/failed, Map
 * iterations), the task events (TaskScheduled, TaskStarted, TaskSubmitted, TaskSucceeded/Failed/
 * TimedOut, or LambdaFunction* for a plain function ARN), and the execution's end, each with id,
 * previousEventId, timestamp and its `<type>EventDetails`.
 *
 * Two sources feed it. State events come from the engine's event log, which is read asynchronously
 * (a few microtasks behind the engine). Task events come from the runtime's own task handler, which
 * the engine calls synchronously right after it logs the state entered, so a task event can be
 * ready before the state entry it belongs to has been read. Each task event is therefore gated on
 * the number of state entries the engine had made when it happened (counted synchronously as the
 * engine looks each state up) and joins the history once that many entries have been read.
 */
import type { RuntimeClock } from '../clock';
import { AWS_DEFAULT_TASK_TIMEOUT_SECONDS, type TaskSpec } from './definition';
import { historyResource } from './resources';

export interface HistoryEvent {
  readonly id: number;
  readonly previousEventId: number;
  readonly timestamp: Date;
  readonly type: string;
  /** `<type>EventDetails` (or the shared stateEntered/stateExitedEventDetails), as AWS names them. */
  readonly detailsKey?: string;
  readonly details?: Readonly<Record<string, unknown>>;
}

/** Fields that carry execution data (left out when includeExecutionData is false). */
const DATA_FIELDS = ['input', 'output', 'parameters'] as const;

/** The name AWS gives an event type's details field. */
export function detailsKeyOf(type: string): string | undefined {
  if (type.endsWith('StateEntered')) return 'stateEnteredEventDetails';
  if (type.endsWith('StateExited')) return 'stateExitedEventDetails';
  if (/^(Parallel|Map)State(Started|Succeeded|Failed|Aborted)$/.test(type)) {
    return type === 'MapStateStarted' ? 'mapStateStartedEventDetails' : undefined;
  }
  if (type === 'LambdaFunctionStarted') return undefined;
  return `${type.charAt(0).toLowerCase()}${type.slice(1)}EventDetails`;
}

/** A JSON payload as history details carry it: the text, and whether it was truncated (never here). */
export function payload(field: 'input' | 'output', value: string): Record<string, unknown> {
  return { [field]: value, [`${field}Details`]: { truncated: false } };
}

export class ExecutionHistory {
  constructor(private readonly clock: RuntimeClock) {}

  private readonly events: HistoryEvent[] = [];
  private readonly waiting: Array<{
    readonly gate: number;
    readonly type: string;
    readonly details?: object;
  }> = [];
  /** State entries the engine made (counted synchronously) and state entries read from its log. */
  private entriesMade = 0;
  private entriesRead = 0;
  private finished = false;
  /** Approximate bytes held, for the runtime's memory budget. */
  bytes = 0;

  get length(): number {
    return this.events.length;
  }

  /** The engine is about to enter a state (called synchronously, before it logs the entry). */
  entering(): void {
    this.entriesMade += 1;
  }

  /** A state event read from the engine's log; `isEntry` for the state entered events. */
  recordState(type: string, details?: object, isEntry = false): void {
    this.append(type, details);
    if (!isEntry) return;
    this.entriesRead += 1;
    while (this.waiting.length > 0 && (this.waiting[0]?.gate ?? 0) <= this.entriesRead) {
      const next = this.waiting.shift();
      if (next) this.append(next.type, next.details);
    }
  }

  /** A task event, which belongs after the state entries the engine has made so far. */
  recordTask(type: string, details?: object): void {
    if (this.finished) return;
    if (this.waiting.length === 0 && this.entriesMade <= this.entriesRead) this.append(type, details);
    else this.waiting.push({ gate: this.entriesMade, type, details });
  }

  /** The execution's last event: whatever is still waiting goes first, nothing comes after. */
  finish(type: string, details?: object): void {
    if (this.finished) return;
    for (const next of this.waiting.splice(0)) this.append(next.type, next.details);
    this.append(type, details);
    this.finished = true;
  }

  /** One page of events (ids are positions in the history, from 1). */
  page(request: { readonly from: number; readonly count: number; readonly reverse: boolean }): {
    readonly events: readonly HistoryEvent[];
    readonly next?: number;
  } {
    const ordered = request.reverse ? [...this.events].reverse() : this.events;
    const events = ordered.slice(request.from, request.from + request.count);
    const next = request.from + events.length;
    return { events, ...(next < ordered.length ? { next } : {}) };
  }

  private append(type: string, details?: object): void {
    if (this.finished) return;
    const id = this.events.length + 1;
    const detailsKey = detailsKeyOf(type);
    this.events.push({
      id,
      previousEventId: id - 1,
      timestamp: this.clock.date(),
      type,
      ...(detailsKey && details ? { detailsKey, details: details as Record<string, unknown> } : {}),
    });
    this.bytes += 64 + type.length + (details ? JSON.stringify(details).length : 0);
  }
}

/** An event as the API answers it (timestamps in epoch seconds, as the AWS JSON protocol has them). */
export function historyEventBody(
  event: HistoryEvent,
  includeExecutionData: boolean,
): Record<string, unknown> {
  let details = event.details;
  if (details && !includeExecutionData) {
    details = Object.fromEntries(
      Object.entries(details).filter(([key]) => !(DATA_FIELDS as readonly string[]).includes(key)),
    );
  }
  return {
    timestamp: event.timestamp.getTime() / 1000,
    type: event.type,
    id: event.id,
    previousEventId: event.previousEventId,
    ...(event.detailsKey && details ? { [event.detailsKey]: details } : {}),
  };
}

/** An event of the engine's log (aws-local-stepfunctions), as far as the runtime reads it. */
export interface EngineLogEvent {
  readonly type: string;
  readonly state?: {
    readonly name: string;
    readonly type: string;
    readonly input?: unknown;
    readonly output?: unknown;
  };
  readonly parentState?: { readonly name: string };
  readonly index?: number;
  readonly Error?: string;
  readonly Cause?: unknown;
}

/** The state events of the history, from the engine's log (task and execution events come from the runtime). */
export function recordEngineEvent(history: ExecutionHistory, log: EngineLogEvent): void {
  const state = log.state;
  switch (log.type) {
    case 'StateEntered':
      if (!state) return;
      history.recordState(
        `${state.type}StateEntered`,
        { name: state.name, ...payload('input', JSON.stringify(state.input ?? null)) },
        true,
      );
      if (state.type === 'Parallel' || state.type === 'Map') history.recordState(`${state.type}StateStarted`);
      return;
    case 'StateExited':
      if (!state) return;
      if (state.type === 'Parallel' || state.type === 'Map')
        history.recordState(`${state.type}StateSucceeded`);
      history.recordState(`${state.type}StateExited`, {
        name: state.name,
        ...payload('output', JSON.stringify(state.output ?? null)),
      });
      return;
    case 'StateFailed':
      if (state && (state.type === 'Parallel' || state.type === 'Map'))
        history.recordState(`${state.type}StateFailed`);
      return;
    case 'MapIterationStarted':
    case 'MapIterationSucceeded':
    case 'MapIterationFailed':
      history.recordState(log.type, { name: log.parentState?.name ?? '', index: log.index ?? 0 });
      return;
    default:
      // Execution events are the runtime's own; branch and retry events have no AWS history event.
      return;
  }
}

/** The history events of one task attempt, named as AWS names them for its kind of resource. */
export function taskHistory(history: ExecutionHistory, spec: TaskSpec, region: string) {
  const json = (value: unknown) => JSON.stringify(value ?? null);
  const timeouts = {
    ...(spec.timeoutSeconds === AWS_DEFAULT_TASK_TIMEOUT_SECONDS
      ? {}
      : { timeoutInSeconds: spec.timeoutSeconds }),
    ...(spec.heartbeatSeconds === undefined ? {} : { heartbeatInSeconds: spec.heartbeatSeconds }),
  };
  if (spec.integration.service === 'lambda-function') {
    // A plain function ARN as Resource: AWS reports LambdaFunction* events rather than Task* ones.
    const { timeoutInSeconds } = timeouts as { timeoutInSeconds?: number };
    return {
      scheduled: (input: unknown) =>
        history.recordTask('LambdaFunctionScheduled', {
          resource: spec.resource,
          ...payload('input', json(input)),
          ...(timeoutInSeconds === undefined ? {} : { timeoutInSeconds }),
        }),
      started: () => history.recordTask('LambdaFunctionStarted'),
      submitted: (_response: unknown) => undefined,
      succeeded: (output: unknown) =>
        history.recordTask('LambdaFunctionSucceeded', payload('output', json(output))),
      failed: (error: string, cause: string) => history.recordTask('LambdaFunctionFailed', { error, cause }),
      timedOut: (error: string, cause: string) =>
        history.recordTask('LambdaFunctionTimedOut', { error, cause }),
    };
  }
  const resource = historyResource(spec.resource);
  return {
    scheduled: (parameters: unknown) =>
      history.recordTask('TaskScheduled', { ...resource, region, parameters: json(parameters), ...timeouts }),
    started: () => history.recordTask('TaskStarted', resource),
    submitted: (response: unknown) =>
      history.recordTask('TaskSubmitted', { ...resource, ...payload('output', json(response)) }),
    succeeded: (output: unknown) =>
      history.recordTask('TaskSucceeded', { ...resource, ...payload('output', json(output)) }),
    failed: (error: string, cause: string) => history.recordTask('TaskFailed', { ...resource, error, cause }),
    timedOut: (error: string, cause: string) =>
      history.recordTask('TaskTimedOut', { ...resource, error, cause }),
  };
}
