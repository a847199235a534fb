/**
 * Checks an ASL definition against what the local engine really executes, and derives the copy the
 * engine runs. Pure (no engine, no I/O), so every rule is unit-tested.
 *
 * aws-local-stepfunctions silently ignores JSONata, variables and HeartbeatSeconds and gives every
 * Task a 60 s timeout unless told otherwise. A definition that depends on an ignored feature would
 * run differently here than on AWS, so it is refused at registration with the reason, and every
 * Task gets an explicit timeout in the engine copy.
 */
import { classifyResource, SUPPORTED_RESOURCES, type TaskIntegration } from './resources';

/** AWS default TimeoutSeconds of a Task that declares none (about 3.2 years). */
export const AWS_DEFAULT_TASK_TIMEOUT_SECONDS = 99_999_999;

/**
 * Longest delay a Node timer can hold (2^31 - 1 ms, about 24.8 days). Longer timeouts (including the
 * AWS default) are capped to it: a local process never lives that long, and a longer value would
 * overflow and fire at once.
 */
export const MAX_TIMER_SECONDS = Math.floor(2_147_483_647 / 1000);

/** Marker the engine resolves `$$.Task.Token` to; each task replaces it with a freshly minted token. */
export const TASK_TOKEN_PLACEHOLDER = '__local-sfn-task-token-placeholder__';

/** Fields that only exist for JSONata or variables; the engine would ignore them without a word. */
const UNSUPPORTED_FIELDS: readonly string[] = ['Assign', 'Arguments', 'Output', 'Items'];

export interface TaskSpec {
  readonly stateName: string;
  readonly resource: string;
  readonly integration: TaskIntegration;
  /** TimeoutSeconds as AWS applies it (declared, or the AWS default). */
  readonly timeoutSeconds: number;
  /** What the engine and the token timers really wait: timeoutSeconds capped to MAX_TIMER_SECONDS. */
  readonly effectiveTimeoutSeconds: number;
  readonly heartbeatSeconds?: number;
}

export interface PreparedDefinition {
  /** The copy the engine runs: explicit Task timeouts, no execution timeout (the runtime owns it). */
  readonly engineDefinition: Record<string, unknown>;
  /** Every Task state (top level and nested branches), by state name. */
  readonly tasks: ReadonlyMap<string, TaskSpec>;
  /** Top-level TimeoutSeconds of the execution, if declared. */
  readonly executionTimeoutSeconds?: number;
  /** Non-fatal findings, e.g. a Task whose Resource the local runtime does not support (its execution will fail there). */
  readonly warnings: readonly string[];
}

export class InvalidDefinitionError extends Error {
  constructor(
    readonly stateMachineName: string,
    readonly problems: readonly string[],
  ) {
    super(`State machine '${stateMachineName}' cannot run locally:\n - ${problems.join('\n - ')}`);
    this.name = 'InvalidDefinitionError';
  }
}

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isPositiveInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1;
}

/** Parses and checks a definition; throws InvalidDefinitionError listing every problem found. */
export function prepareDefinition(stateMachineName: string, definitionJson: string): PreparedDefinition {
  let parsed: unknown;
  try {
    parsed = JSON.parse(definitionJson);
  } catch (error) {
    throw new InvalidDefinitionError(stateMachineName, [
      `definition is not JSON: ${(error as Error).message}`,
    ]);
  }
  if (!isObject(parsed)) {
    throw new InvalidDefinitionError(stateMachineName, ['definition must be a JSON object']);
  }
  // A second parse rather than structuredClone: the engine recognises plain objects by their
  // prototype, and structuredClone may build them in another realm (e.g. under Jest).
  const engineDefinition = JSON.parse(definitionJson) as JsonObject;
  const findings: Findings = {
    problems: [],
    warnings: [],
    tasks: new Map(),
    seenStateNames: new Set(),
  };
  const { problems, warnings, tasks } = findings;
  visitMachine(engineDefinition, 'the definition', findings);
  const executionTimeout = engineDefinition.TimeoutSeconds;
  if (executionTimeout !== undefined && !isPositiveInteger(executionTimeout)) {
    problems.push(`top-level TimeoutSeconds ${JSON.stringify(executionTimeout)} must be an integer >= 1`);
  }
  // The runtime enforces the execution timeout itself so it can report TIMED_OUT (and cap it).
  delete engineDefinition.TimeoutSeconds;
  if (problems.length > 0) {
    throw new InvalidDefinitionError(stateMachineName, problems);
  }
  return {
    engineDefinition,
    tasks,
    ...(isPositiveInteger(executionTimeout) ? { executionTimeoutSeconds: executionTimeout } : {}),
    warnings,
  };
}

/** What visiting a definition finds: problems refuse it, warnings do not; its tasks' specs. */
interface Findings {
  readonly problems: string[];
  readonly warnings: string[];
  readonly tasks: Map<string, TaskSpec>;
  /** State names are unique in the whole machine, branches and processors included. */
  readonly seenStateNames: Set<string>;
}

/** Only JSONPath runs locally: a QueryLanguage of JSONata is refused, not silently ignored. */
function checkQueryLanguage(holder: JsonObject, where: string, findings: Findings): void {
  const language = holder.QueryLanguage;
  if (language !== undefined && language !== 'JSONPath') {
    findings.problems.push(
      `${where} sets QueryLanguage '${String(language)}': only JSONPath runs locally ` +
        '(the engine would silently ignore JSONata expressions)',
    );
  }
}

/**
 * A Task state: its timeouts checked and made explicit for the engine (its own timer raises the
 * genuine States.Timeout), its integration classified, and its spec kept for the runtime.
 */
function visitTask(name: string, state: JsonObject, findings: Findings): void {
  for (const field of ['TimeoutSecondsPath', 'HeartbeatSecondsPath']) {
    if (field in state) {
      findings.problems.push(
        `state '${name}' uses ${field}, which the local runtime does not support; use a fixed value`,
      );
    }
  }
  const resource = state.Resource;
  if (typeof resource !== 'string' || resource === '') {
    findings.problems.push(`state '${name}' is a Task without a Resource string`);
    return;
  }
  if (state.TimeoutSeconds !== undefined && !isPositiveInteger(state.TimeoutSeconds)) {
    findings.problems.push(
      `state '${name}' has TimeoutSeconds ${JSON.stringify(state.TimeoutSeconds)}; expected an integer >= 1`,
    );
  }
  if (state.HeartbeatSeconds !== undefined && !isPositiveInteger(state.HeartbeatSeconds)) {
    findings.problems.push(
      `state '${name}' has HeartbeatSeconds ${JSON.stringify(state.HeartbeatSeconds)}; expected an integer >= 1`,
    );
  }
  const timeoutSeconds = isPositiveInteger(state.TimeoutSeconds)
    ? state.TimeoutSeconds
    : AWS_DEFAULT_TASK_TIMEOUT_SECONDS;
  const heartbeatSeconds = isPositiveInteger(state.HeartbeatSeconds) ? state.HeartbeatSeconds : undefined;
  if (heartbeatSeconds !== undefined && heartbeatSeconds >= timeoutSeconds) {
    findings.problems.push(
      `state '${name}' has HeartbeatSeconds ${heartbeatSeconds}, which must be below TimeoutSeconds ${timeoutSeconds}`,
    );
  }
  const integration = classifyResource(resource);
  if (integration.service === 'unsupported') {
    findings.warnings.push(
      `state '${name}': Resource '${resource}' is not supported locally (${integration.reason}); ` +
        `an execution reaching it fails with States.Runtime. Supported: ${SUPPORTED_RESOURCES.join('; ')}`,
    );
  } else if (
    integration.pattern === 'wait-for-task-token' &&
    !JSON.stringify(state.Parameters ?? null).includes('$$.Task.Token')
  ) {
    findings.problems.push(
      `state '${name}' uses .waitForTaskToken but its Parameters never pass $$.Task.Token`,
    );
  }
  const effectiveTimeoutSeconds = Math.min(timeoutSeconds, MAX_TIMER_SECONDS);
  // The engine's own timer (on the runtime's clock, ./engine.ts) raises the genuine States.Timeout,
  // which States.TaskFailed must not match; an explicit value keeps its 60 s default from applying.
  state.TimeoutSeconds = effectiveTimeoutSeconds;
  delete state.HeartbeatSeconds;
  findings.tasks.set(name, {
    stateName: name,
    resource,
    integration,
    timeoutSeconds,
    effectiveTimeoutSeconds,
    ...(heartbeatSeconds === undefined ? {} : { heartbeatSeconds }),
  });
}

/** A state machine (the definition, a Parallel branch, a Map's processor) and every state in it. */
function visitMachine(machine: unknown, where: string, findings: Findings): void {
  if (!isObject(machine)) {
    findings.problems.push(`${where} must be an object with StartAt and States`);
    return;
  }
  checkQueryLanguage(machine, where, findings);
  if (typeof machine.StartAt !== 'string') findings.problems.push(`${where} has no StartAt string`);
  if (!isObject(machine.States)) {
    findings.problems.push(`${where} has no States object`);
    return;
  }
  for (const [name, state] of Object.entries(machine.States)) {
    if (!isObject(state)) {
      findings.problems.push(`state '${name}' must be an object`);
      continue;
    }
    if (findings.seenStateNames.has(name)) {
      findings.problems.push(
        `state name '${name}' is used twice; state names must be unique in the whole state machine`,
      );
    }
    findings.seenStateNames.add(name);
    checkQueryLanguage(state, `state '${name}'`, findings);
    for (const field of UNSUPPORTED_FIELDS) {
      if (field in state) {
        findings.problems.push(
          `state '${name}' uses '${field}' (JSONata or variables), which the local engine would silently ignore; ` +
            'use JSONPath Parameters / ResultSelector / ResultPath / OutputPath',
        );
      }
    }
    switch (state.Type) {
      case 'Task':
        visitTask(name, state, findings);
        break;
      case 'Parallel':
        if (!Array.isArray(state.Branches)) {
          findings.problems.push(`state '${name}' is a Parallel without Branches`);
          break;
        }
        for (const [index, branch] of state.Branches.entries()) {
          visitMachine(branch, `state '${name}' branch ${index}`, findings);
        }
        break;
      case 'Map':
        visitMachine(state.ItemProcessor ?? state.Iterator, `state '${name}' ItemProcessor`, findings);
        if ('ItemReader' in state || 'ResultWriter' in state) {
          findings.problems.push(
            `state '${name}' is a distributed Map (ItemReader/ResultWriter), which does not run locally`,
          );
        }
        break;
      default:
        break;
    }
  }
}
