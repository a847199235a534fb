/**
 * The Step Functions runtime behind the local API: registered state machines, executions and
 * their lifecycle, task tokens, and events for the live log. The ASL interpreter is
 * aws-local-stepfunctions; this module supplies what it lacks (service integrations, real task
 * tokens, heartbeats, explicit timeouts, execution names and statuses).
 *
 * Nothing is persisted: executions in flight are lost when the process stops. The Scheduler Agent
 * Supervisor pattern is built for exactly that: their state records stay Processing, expire, and the
 * supervisor hands them back to the starter.
 */
import './promise-polyfill';
import { EventEmitter } from 'node:events';
import { type RunOptions, StateMachine, type StateMachineDefinition } from 'aws-local-stepfunctions';
import { mintUuid } from '../minted-ids';
import {
  InvalidDefinitionError,
  MAX_TIMER_SECONDS,
  type PreparedDefinition,
  prepareDefinition,
  TASK_TOKEN_PLACEHOLDER,
  type TaskSpec,
} from './definition';
import { engineOn } from './engine';
import { runtimeFailure, SfnApiError, TaskFailure } from './errors';
import {
  dataLimitExceeded,
  decodeHistoryToken,
  decodePageToken,
  describeFailure,
  EXECUTION_ARN,
  type Execution,
  encodeToken,
  executionDescription,
  isValidExecutionName,
  parsePayload,
  STATE_MACHINE_ARN,
  type StateTracker,
  type StoredMachine,
  settledOrLate,
} from './execution';
import {
  type EngineLogEvent,
  ExecutionHistory,
  type HistoryEvent,
  payload,
  recordEngineEvent,
  taskHistory,
} from './history';
import {
  DATA_LIMIT_EXCEEDED,
  lengthConstraintMessage,
  MAX_EXECUTION_NAME_LENGTH,
  MAX_PAYLOAD_BYTES,
  payloadBytes,
  taskResultTooLarge,
} from './limits';
import { SUPPORTED_RESOURCES } from './resources';
import type {
  ExecutionDescription,
  ExecutionStatus,
  LocalSfnEvent,
  RegisteredStateMachine,
  RegisterStateMachineOptions,
  RuntimeOptions,
  StateMachineDescription,
} from './runtime-types';
import { instrumentStates, replaceInStrings, structuredCopy } from './states-copy';
import { type TaskTimeoutError, TaskTokenRegistry } from './task-tokens';

export class StepFunctionsRuntime {
  readonly events = new EventEmitter();
  private readonly machines = new Map<string, StoredMachine>();
  private readonly executions = new Map<string, Execution>();
  private readonly tokens: TaskTokenRegistry;
  private readonly validatedDefinitions = new Set<string>();
  private sequence = 0;
  private historyBytes = 0;

  constructor(private readonly options: RuntimeOptions) {
    this.tokens = new TaskTokenRegistry({
      maxClosedTokens: options.maxRememberedTokens,
      onTimeout: (owner, error) => this.onTaskTimeout(owner.executionArn, owner.stateName, error),
      clock: options.clock,
    });
  }

  stateMachineArnFor(name: string): string {
    return `arn:aws:states:${this.options.region}:${this.options.accountId}:stateMachine:${name}`;
  }

  /**
   * Registers (or replaces) a state machine. Executions already running keep the definition they
   * started with. Throws InvalidDefinitionError naming every problem.
   */
  registerStateMachine(
    stateMachineArn: string,
    name: string,
    definitionJson: string,
    options: RegisterStateMachineOptions = {},
  ): RegisteredStateMachine {
    const match = STATE_MACHINE_ARN.exec(stateMachineArn);
    if (!match) {
      throw new Error(
        `'${stateMachineArn}' is not a state machine ARN (arn:aws:states:<region>:<account>:stateMachine:<name>)`,
      );
    }
    if (match[3] !== name) {
      throw new Error(`State machine name '${name}' does not match the name in its ARN '${stateMachineArn}'`);
    }
    const prepared = prepareDefinition(name, definitionJson);
    // The engine's own ASL validation (asl-validator) costs about a second, so it runs once per
    // distinct definition and executions skip it.
    if (!this.validatedDefinitions.has(definitionJson)) {
      try {
        new StateMachine(structuredCopy(prepared.engineDefinition) as unknown as StateMachineDefinition);
      } catch (error) {
        throw new InvalidDefinitionError(name, [(error as Error).message]);
      }
      this.validatedDefinitions.add(definitionJson);
    }
    this.machines.set(stateMachineArn, {
      prepared,
      description: {
        stateMachineArn,
        name,
        definition: definitionJson,
        roleArn: options.roleArn ?? `arn:aws:iam::${this.options.accountId}:role/local-step-functions`,
        type: options.type ?? 'STANDARD',
        creationDate: this.options.clock.date(),
      },
    });
    return { stateMachineArn, warnings: prepared.warnings };
  }

  listStateMachines(): StateMachineDescription[] {
    return [...this.machines.values()].map((machine) => machine.description);
  }

  describeStateMachine(stateMachineArn: string): StateMachineDescription {
    return this.machine(stateMachineArn).description;
  }

  startExecution(request: { stateMachineArn: string; name?: string; input?: string }): {
    executionArn: string;
    startDate: Date;
  } {
    const machine = this.machine(request.stateMachineArn);
    const name = request.name ?? mintUuid();
    // A name past the model's length constraint is refused by AWS's request validation, before the
    // service's own InvalidName (limits.ts).
    if (name.length < 1 || name.length > MAX_EXECUTION_NAME_LENGTH) {
      throw new SfnApiError(
        'ValidationException',
        name.length < 1
          ? "1 validation error detected: Value '' at 'name' failed to satisfy constraint: Member must have length greater than or equal to 1"
          : lengthConstraintMessage('name', name, MAX_EXECUTION_NAME_LENGTH),
      );
    }
    if (!isValidExecutionName(name)) {
      throw new SfnApiError(
        'InvalidName',
        `Invalid Name: '${name}' (no whitespace, brackets, wildcards, special or control characters)`,
      );
    }
    const inputText = request.input ?? '{}';
    const input = parsePayload(inputText, 'InvalidExecutionInput', 'input');
    const executionArn = `${request.stateMachineArn.replace(':stateMachine:', ':execution:')}:${name}`;
    const existing = this.executions.get(executionArn);
    if (existing) {
      // AWS: restarting a RUNNING execution with the same name and input is idempotent.
      if (existing.status === 'RUNNING' && existing.input === inputText) {
        return { executionArn, startDate: existing.startDate };
      }
      throw new SfnApiError('ExecutionAlreadyExists', `Execution Already Exists: '${executionArn}'`);
    }
    const execution: Execution = {
      executionArn,
      stateMachineArn: request.stateMachineArn,
      machine: machine.description,
      history: new ExecutionHistory(this.options.clock),
      name,
      sequence: ++this.sequence,
      startDate: this.options.clock.date(),
      input: inputText,
      status: 'RUNNING',
    };
    this.executions.set(executionArn, execution);
    execution.history.recordState('ExecutionStarted', {
      ...payload('input', inputText),
      roleArn: machine.description.roleArn,
    });
    this.forgetOldExecutions();
    this.emit({ type: 'ExecutionStarted', ...this.eventBase(execution) });
    this.run(machine, execution, input);
    return { executionArn, startDate: execution.startDate };
  }

  describeExecution(executionArn: string): ExecutionDescription {
    return executionDescription(this.execution(executionArn));
  }

  listExecutions(request: {
    stateMachineArn: string;
    statusFilter?: ExecutionStatus;
    maxResults?: number;
    nextToken?: string;
  }): {
    executions: ExecutionDescription[];
    nextToken?: string;
  } {
    this.machine(request.stateMachineArn);
    const pageSize = request.maxResults && request.maxResults > 0 ? Math.min(request.maxResults, 1000) : 100;
    const before =
      request.nextToken === undefined ? Number.POSITIVE_INFINITY : decodePageToken(request.nextToken);
    const matching = [...this.executions.values()]
      .filter(
        (execution) =>
          execution.stateMachineArn === request.stateMachineArn &&
          execution.sequence < before &&
          (request.statusFilter === undefined || execution.status === request.statusFilter),
      )
      .sort((a, b) => b.sequence - a.sequence);
    const page = matching.slice(0, pageSize);
    const last = page.at(-1);
    return {
      executions: page.map(executionDescription),
      ...(matching.length > pageSize && last ? { nextToken: encodeToken({ before: last.sequence }) } : {}),
    };
  }

  stopExecution(request: { executionArn: string; error?: string; cause?: string }): { stopDate: Date } {
    const execution = this.execution(request.executionArn);
    if (execution.status === 'RUNNING') {
      this.close(execution, 'ABORTED', { error: request.error, cause: request.cause });
      execution.history.finish('ExecutionAborted', {
        ...(request.error === undefined ? {} : { error: request.error }),
        ...(request.cause === undefined ? {} : { cause: request.cause }),
      });
      this.emit({
        type: 'ExecutionAborted',
        ...this.eventBase(execution),
        ...(request.error === undefined ? {} : { error: request.error }),
        ...(request.cause === undefined ? {} : { cause: request.cause }),
      });
    }
    return { stopDate: execution.stopDate ?? this.options.clock.date() };
  }

  /** The execution's events, a page at a time (`from` is a position in the chosen order). */
  getExecutionHistory(request: {
    executionArn: string;
    maxResults?: number;
    reverseOrder?: boolean;
    nextToken?: string;
  }): { events: readonly HistoryEvent[]; nextToken?: string } {
    const execution = this.execution(request.executionArn);
    const reverse = request.reverseOrder === true;
    const count = request.maxResults && request.maxResults > 0 ? Math.min(request.maxResults, 1000) : 100;
    const from =
      request.nextToken === undefined ? 0 : decodeHistoryToken(request.nextToken, execution, reverse);
    const page = execution.history.page({ from, count, reverse });
    return {
      events: page.events,
      ...(page.next === undefined
        ? {}
        : { nextToken: encodeToken({ history: execution.executionArn, reverse, from: page.next }) }),
    };
  }

  /** The state machine as it was when the execution started. */
  describeStateMachineForExecution(executionArn: string): StateMachineDescription {
    return this.execution(executionArn).machine;
  }

  /** The execution a task token was issued to, while the runtime remembers it. */
  executionOfTaskToken(taskToken: string): string | undefined {
    return this.tokens.executionOf(taskToken);
  }

  sendTaskSuccess(taskToken: string, outputText: string): void {
    const output = parsePayload(outputText, 'InvalidOutput', 'output');
    this.tokens.succeed(taskToken, output);
  }

  sendTaskFailure(taskToken: string, error: string | undefined, cause: string | undefined): void {
    this.tokens.fail(taskToken, error ?? '', cause ?? '');
  }

  sendTaskHeartbeat(taskToken: string): void {
    this.tokens.heartbeat(taskToken);
  }

  /** Aborts every running execution (they are lost, as documented) and releases all timers. */
  shutdown(): void {
    for (const execution of this.executions.values()) {
      if (execution.status === 'RUNNING') {
        const details = { error: 'States.Runtime', cause: 'The local Step Functions runtime stopped' };
        this.close(execution, 'ABORTED', details);
        execution.history.finish('ExecutionAborted', details);
      }
    }
  }

  private run(machine: StoredMachine, execution: Execution, input: unknown): void {
    const { prepared, description } = machine;
    const tracker: StateTracker = { stateName: '', enteredTime: execution.startDate.toISOString() };
    const engine = new (engineOn(this.options.clock).StateMachine)(
      instrumentStates(prepared.engineDefinition, (stateName) => {
        tracker.stateName = stateName;
        tracker.enteredTime = this.options.clock.date().toISOString();
        execution.history.entering();
        // Emitted here, not from the engine's (asynchronous) event log, so the live log keeps order.
        this.emit({ type: 'StateEntered', ...this.eventBase(execution), stateName });
      }) as unknown as StateMachineDefinition,
      { validationOptions: { noValidate: true } },
    );
    const taskResourceLocalHandlers: Record<string, (taskInput: unknown) => Promise<never>> = {};
    for (const [stateName, spec] of prepared.tasks) {
      taskResourceLocalHandlers[stateName] = (taskInput) =>
        this.runTask(execution, spec, taskInput) as Promise<never>;
    }
    const callbackStates = new Set(
      [...prepared.tasks.values()]
        .filter(
          (spec) =>
            spec.integration.service !== 'unsupported' && spec.integration.pattern === 'wait-for-task-token',
        )
        .map((spec) => spec.stateName),
    );
    const context: NonNullable<RunOptions['context']> = {
      Execution: {
        Id: execution.executionArn,
        Name: execution.name,
        RoleArn: description.roleArn,
        RedriveCount: 0,
      },
      StateMachine: { Id: description.stateMachineArn, Name: description.name },
      // Getters: the engine evaluates $$ paths while entering a state, right after the tracker moved.
      State: {
        get Name() {
          return tracker.stateName;
        },
        get EnteredTime() {
          return tracker.enteredTime;
        },
      },
      Task: {
        get Token() {
          return callbackStates.has(tracker.stateName) ? TASK_TOKEN_PLACEHOLDER : undefined;
        },
      },
    };
    const run = engine.run(input as never, {
      overrides: { taskResourceLocalHandlers },
      noThrowOnAbort: true,
      context,
    });
    execution.abort = run.abort;
    if (prepared.executionTimeoutSeconds !== undefined) {
      const seconds = prepared.executionTimeoutSeconds;
      execution.timeoutTimer = this.options.clock.setTimer(() => {
        const cause = `Execution timed out after ${seconds} s (TimeoutSeconds)`;
        this.close(execution, 'TIMED_OUT', { error: 'States.Timeout', cause });
        execution.history.finish('ExecutionTimedOut', { error: 'States.Timeout', cause });
        this.emit({
          type: 'ExecutionTimedOut',
          ...this.eventBase(execution),
          error: 'States.Timeout',
          cause,
        });
      }, Math.min(seconds, MAX_TIMER_SECONDS) * 1000);
    }
    const logRead = this.forwardStateEvents(execution, prepared, run.eventLogs);
    // The end is recorded once the engine's log is read to its end, so it is the history's last event.
    const afterLog =
      <T>(settle: (value: T) => void) =>
      (value: T) => {
        void settledOrLate(logRead).then(() => settle(value));
      };
    run.result.then(
      afterLog((output: unknown) => {
        if (execution.status !== 'RUNNING') return;
        const text = JSON.stringify(output ?? null);
        this.close(execution, 'SUCCEEDED', { output: text });
        execution.history.finish('ExecutionSucceeded', payload('output', text));
        this.emit({ type: 'ExecutionSucceeded', ...this.eventBase(execution) });
      }),
      afterLog((failure: unknown) => {
        if (execution.status !== 'RUNNING') return;
        const { error, cause } = describeFailure(failure);
        this.close(execution, 'FAILED', { error, cause });
        execution.history.finish('ExecutionFailed', { error, cause });
        this.emit({ type: 'ExecutionFailed', ...this.eventBase(execution), error, cause });
      }),
    );
  }

  /**
   * One Task attempt. Not async on purpose: the task token and its timers must exist before this
   * returns, because the engine arms its own timer for the same task right after calling it.
   */
  private runTask(execution: Execution, spec: TaskSpec, taskInput: unknown): Promise<unknown> {
    const { integration } = spec;
    const base = { ...this.eventBase(execution), stateName: spec.stateName, resource: spec.resource };
    const history = taskHistory(execution.history, spec, this.options.region);
    this.emit({ type: 'TaskScheduled', ...base });
    if (integration.service === 'unsupported') {
      const failure = runtimeFailure(
        `State '${spec.stateName}': Resource '${spec.resource}' is not supported by the local Step Functions runtime ` +
          `(${integration.reason}). Supported: ${SUPPORTED_RESOURCES.join('; ')}`,
      );
      history.scheduled(taskInput);
      history.failed(failure.name, failure.message);
      this.emit({ type: 'TaskFailed', ...base, error: failure.name, cause: failure.message });
      return Promise.reject(failure);
    }
    // The state's input after Parameters over the quota fails the execution (limits.ts).
    if (payloadBytes(taskInput) > MAX_PAYLOAD_BYTES) {
      return Promise.reject(
        dataLimitExceeded(
          `The state '${spec.stateName}' has an input, after Parameters, larger than the maximum number of bytes service limit.`,
        ),
      );
    }
    let ticket: { readonly token: string; readonly outcome: Promise<unknown> } | undefined;
    let parameters = taskInput;
    if (integration.pattern === 'wait-for-task-token') {
      ticket = this.tokens.issue({
        executionArn: execution.executionArn,
        stateName: spec.stateName,
        timeoutSeconds: spec.effectiveTimeoutSeconds,
        ...(spec.heartbeatSeconds === undefined ? {} : { heartbeatSeconds: spec.heartbeatSeconds }),
      });
      parameters = replaceInStrings(taskInput, TASK_TOKEN_PLACEHOLDER, ticket.token);
    }
    history.scheduled(parameters);
    history.started();
    const attempt = async (): Promise<unknown> => {
      try {
        // The engine may call a task in the same tick as it ends the state before, whose output the
        // event log (forwardStateEvents) checks against the quota: let the log catch up, so a task
        // never runs after an execution has failed on a state's output.
        await new Promise((resolve) => setImmediate(resolve));
        if (execution.status !== 'RUNNING')
          throw new TaskFailure('States.Runtime', `Execution ${execution.status}`);
        const roleArn = execution.machine.roleArn;
        const call = this.options.integrations.call(spec.stateName, integration, parameters, roleArn);
        const response = await call;
        if (ticket) history.submitted(response);
        const result = ticket ? await ticket.outcome : response;
        // A connector's output over the quota fails the execution (limits.ts).
        if (payloadBytes(result) > MAX_PAYLOAD_BYTES)
          throw dataLimitExceeded(taskResultTooLarge(spec.resource));
        history.succeeded(result);
        this.emit({ type: 'TaskSucceeded', ...base });
        return result;
      } catch (error) {
        if (ticket) this.tokens.release(ticket.token);
        const failure =
          error instanceof TaskFailure
            ? error
            : new TaskFailure('States.TaskFailed', (error as Error).message ?? String(error));
        // Token timeouts are reported as TaskTimedOut by the token registry; after a stop the
        // execution is over and a task failure would only be noise.
        if (execution.status === 'RUNNING' && !failure.timedOut) {
          history.failed(failure.name, failure.message);
          this.emit({ type: 'TaskFailed', ...base, error: failure.name, cause: failure.message });
        }
        throw failure;
      }
    };
    return attempt();
  }

  /** Reads the engine's event log to its end: live-log events, and the state events of the history. */
  private async forwardStateEvents(
    execution: Execution,
    prepared: PreparedDefinition,
    logs: AsyncGenerator<EngineLogEvent>,
  ): Promise<void> {
    for await (const log of logs) {
      recordEngineEvent(execution.history, log);
      const stateName = log.state?.name;
      if (stateName === undefined) continue;
      // A state's output over the quota fails the execution (limits.ts).
      if (log.type === 'StateExited' && payloadBytes(log.state?.output) > MAX_PAYLOAD_BYTES) {
        this.failOnDataLimit(execution, taskResultTooLarge(stateName));
        continue;
      }
      if (log.type === 'StateRetried' || log.type === 'StateCaught') {
        this.emit({ type: log.type, ...this.eventBase(execution), stateName });
      }
      const spec = prepared.tasks.get(stateName);
      // The engine's timer raises States.Timeout; callback tasks are reported by their token instead.
      if (
        log.type === 'StateFailed' &&
        log.Error === 'States.Timeout' &&
        spec &&
        (spec.integration.service === 'unsupported' || spec.integration.pattern === 'request-response')
      ) {
        const cause = `Task did not finish within ${spec.effectiveTimeoutSeconds} s`;
        taskHistory(execution.history, spec, this.options.region).timedOut('States.Timeout', cause);
        this.emit({
          type: 'TaskTimedOut',
          ...this.eventBase(execution),
          stateName,
          resource: spec.resource,
          error: 'States.Timeout',
          cause,
        });
      }
    }
  }

  /** Ends a running execution with States.DataLimitExceeded, stopping the engine where it is. */
  private failOnDataLimit(execution: Execution, cause: string): void {
    if (execution.status !== 'RUNNING') return;
    const abort = execution.abort;
    const error = DATA_LIMIT_EXCEEDED;
    this.close(execution, 'FAILED', { error, cause });
    abort?.();
    execution.history.finish('ExecutionFailed', { error, cause });
    this.emit({ type: 'ExecutionFailed', ...this.eventBase(execution), error, cause });
  }

  private onTaskTimeout(executionArn: string, stateName: string, error: TaskTimeoutError): void {
    const execution = this.executions.get(executionArn);
    const spec = execution
      ? this.machines.get(execution.stateMachineArn)?.prepared.tasks.get(stateName)
      : undefined;
    if (!execution) return;
    const cause =
      error === 'States.Timeout'
        ? `No task result within ${spec?.effectiveTimeoutSeconds ?? '?'} s (TimeoutSeconds)`
        : `No heartbeat within ${spec?.heartbeatSeconds ?? '?'} s (HeartbeatSeconds)`;
    if (spec) taskHistory(execution.history, spec, this.options.region).timedOut(error, cause);
    this.emit({
      type: 'TaskTimedOut',
      ...this.eventBase(execution),
      stateName,
      resource: spec?.resource ?? 'unknown',
      error,
      cause,
    });
  }

  private close(
    execution: Execution,
    status: Exclude<ExecutionStatus, 'RUNNING'>,
    details: { output?: string; error?: string | undefined; cause?: string | undefined },
  ): void {
    execution.status = status;
    execution.stopDate = this.options.clock.date();
    if (details.output !== undefined) execution.output = details.output;
    if (details.error !== undefined) execution.error = details.error;
    if (details.cause !== undefined) execution.cause = details.cause;
    execution.timeoutTimer?.cancel();
    if (status === 'ABORTED' || status === 'TIMED_OUT') execution.abort?.();
    // Waiting tasks end with the execution: late answers get TaskTimedOut, and the engine's
    // pending task settles so its own timers are released.
    this.tokens.abortExecution(execution.executionArn, runtimeFailure(`Execution ${status}`));
    execution.abort = undefined;
  }

  private machine(stateMachineArn: string): StoredMachine {
    if (!STATE_MACHINE_ARN.test(stateMachineArn)) {
      throw new SfnApiError('InvalidArn', `Invalid Arn: '${stateMachineArn}'`);
    }
    const machine = this.machines.get(stateMachineArn);
    if (!machine)
      throw new SfnApiError('StateMachineDoesNotExist', `State Machine Does Not Exist: '${stateMachineArn}'`);
    return machine;
  }

  private execution(executionArn: string): Execution {
    if (!EXECUTION_ARN.test(executionArn)) {
      throw new SfnApiError('InvalidArn', `Invalid Arn: '${executionArn}'`);
    }
    const execution = this.executions.get(executionArn);
    if (!execution)
      throw new SfnApiError('ExecutionDoesNotExist', `Execution Does Not Exist: '${executionArn}'`);
    return execution;
  }

  /**
   * Drops the oldest finished executions (and their histories) beyond the remembered count or the
   * history budget; running ones are always kept.
   */
  private forgetOldExecutions(): void {
    this.historyBytes = 0;
    for (const execution of this.executions.values()) this.historyBytes += execution.history.bytes;
    const overBudget = () =>
      this.executions.size > this.options.maxRememberedExecutions ||
      this.historyBytes > this.options.maxHistoryBytes;
    if (!overBudget()) return;
    for (const [arn, execution] of this.executions) {
      if (!overBudget()) return;
      if (execution.status !== 'RUNNING') {
        this.executions.delete(arn);
        this.historyBytes -= execution.history.bytes;
      }
    }
  }

  private eventBase(execution: Execution) {
    return {
      timestamp: this.options.clock.date(),
      executionArn: execution.executionArn,
      stateMachineArn: execution.stateMachineArn,
    };
  }

  private emit(event: LocalSfnEvent): void {
    this.events.emit('event', event);
    this.events.emit(event.type, event);
  }
}
