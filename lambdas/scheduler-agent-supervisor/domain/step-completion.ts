/**
 * The compact shape's rule for an agent whose call succeeded (contracts/workflows.ts, DESIGN.md
 * "Compact shape"): before it answers the task token, it records its step Completed for the
 * request's execution, so the state machine goes straight to the next agent call. Apart from
 * domain/agent.ts because it is the one thing the agent writes on the scheduler's behalf: what to
 * write comes from the request (AgentRequest.recordCompletion, built by the state machine), how it is
 * fenced from the transitions table (completeStep, completeOrder).
 */
import { type AgentRequest, type AgentResult, operationKey, stepDefinition } from '../contracts';
import { InvalidAgentRequestError } from './errors';
import type { StepCompletion, StepCompletions } from './ports';

/**
 * Why a request may not carry recordCompletion (the agent records only a step it marked Running:
 * a perform request with markRunning), or undefined. The one home of the rule: the request's
 * validation (resolveAgentOperation) and the agent, before any call (assertCompletionPort), apply it.
 */
export function completionRefusal(request: {
  readonly step: string;
  readonly action: AgentRequest['action'];
  readonly markRunning?: unknown;
  readonly recordCompletion?: AgentRequest['recordCompletion'];
}): string | undefined {
  if (request.recordCompletion === undefined || (request.action === 'perform' && request.markRunning)) {
    return undefined;
  }
  return `a ${request.action} request for step '${request.step}' carries recordCompletion, which only a perform request with markRunning may (the agent records a step it marked Running)`;
}

/** The completion a compact version's request records once its call returned `result`. */
export function stepCompletion(request: AgentRequest, result: AgentResult): StepCompletion {
  const record = request.recordCompletion;
  // Checked before the call (assertCompletionPort): unreachable for a request that got this far.
  if (record === undefined) throw new Error(`step '${request.step}': no recordCompletion to record`);
  const definition = stepDefinition(request.step);
  return {
    orderId: request.orderId,
    instanceId: request.instanceId,
    step: definition.name,
    seq: record.seq,
    compensation: definition.compensation.name,
    undoes: operationKey(request.orderId, definition.name),
    confirmationId: result.confirmationId,
    after:
      'finishesOrder' in record
        ? { kind: 'finish-order' }
        : { kind: 'hand-over', completeBy: record.nextDeadlineEpochMillis },
  };
}

/**
 * Refuses, before any call, a request whose completion may not be recorded (completionRefusal) or
 * that the agent has no port to write it with.
 */
export function assertCompletionPort(request: AgentRequest, completions: StepCompletions | undefined): void {
  const refusal = completionRefusal(request);
  if (refusal !== undefined) throw new InvalidAgentRequestError(refusal);
  if (request.recordCompletion !== undefined && completions === undefined) {
    throw new Error(
      `Agent of step '${request.step}' got a recordCompletion request without a completions port`,
    );
  }
}

/**
 * Records the completion a request asks for, if any. Returns why it was fenced out (the execution
 * lost its lock: nothing written, the agent answers Agent.FencedOut), or undefined (recorded now,
 * recorded before by another delivery, or nothing to record). Throws when the write fails otherwise,
 * so the message is redelivered and the completion written then.
 */
export async function recordCompletion(
  request: AgentRequest,
  result: AgentResult,
  completions: StepCompletions | undefined,
): Promise<string | undefined> {
  if (request.recordCompletion === undefined || completions === undefined) return undefined;
  const recorded = await completions.record(stepCompletion(request, result));
  return recorded.kind === 'fenced' ? recorded.detail : undefined;
}
