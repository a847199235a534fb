/**
 * An execution as the local Step Functions runtime (runtime.ts) keeps it, and the pure pieces of its
 * API around it: ARN and name checks, descriptions, payload parsing, page tokens.
 */

import type { ClockTimer } from '../clock';
import type { PreparedDefinition } from './definition';
import { SfnApiError, TaskFailure } from './errors';
import type { ExecutionHistory } from './history';
import {
  DATA_LIMIT_EXCEEDED,
  FORBIDDEN_NAME_CHARACTERS,
  MAX_PAYLOAD_BYTES,
  payloadConstraintMessage,
} from './limits';
import type { ExecutionDescription, ExecutionStatus, StateMachineDescription } from './runtime-types';

export interface StoredMachine {
  readonly description: StateMachineDescription;
  readonly prepared: PreparedDefinition;
}

export interface Execution {
  readonly executionArn: string;
  readonly stateMachineArn: string;
  /** The state machine as it was when the execution started (it may be replaced since). */
  readonly machine: StateMachineDescription;
  readonly history: ExecutionHistory;
  readonly name: string;
  readonly sequence: number;
  readonly startDate: Date;
  readonly input: string;
  status: ExecutionStatus;
  stopDate?: Date;
  output?: string;
  error?: string;
  cause?: string;
  abort?: () => void;
  timeoutTimer?: ClockTimer;
}

/** Which state an execution is in, as the engine reads its States map (feeds $$.State and $$.Task). */
export interface StateTracker {
  stateName: string;
  enteredTime: string;
}

export const STATE_MACHINE_ARN =
  /^arn:aws[a-z-]*:states:([a-z0-9-]+):(\d{12}):stateMachine:([A-Za-z0-9_-]{1,80})$/;
export const EXECUTION_ARN =
  /^arn:aws[a-z-]*:states:[a-z0-9-]+:\d{12}:execution:[A-Za-z0-9_-]{1,80}:[^:]{1,80}$/;
/** An execution name's characters as AWS allows them (limits.ts); its length is checked apart. */
export function isValidExecutionName(name: string): boolean {
  if (FORBIDDEN_NAME_CHARACTERS.test(name)) return false;
  // Control characters (U+0000-U+001F, U+007F-U+009F) are refused as well.
  return ![...name].some((character) => {
    const code = character.codePointAt(0) ?? 0;
    return code <= 0x1f || (code >= 0x7f && code <= 0x9f);
  });
}

/**
 * Resolves when the engine's log has been read to its end, or soon after if it never ends (the
 * execution's end must not wait on the log forever).
 */
export function settledOrLate(logRead: Promise<void>): Promise<void> {
  return new Promise((resolve) => {
    // wall clock: how long the engine's log may take to drain
    const late = setTimeout(resolve, 1000);
    late.unref();
    void logRead.finally(() => {
      clearTimeout(late);
      resolve();
    });
  });
}

export function executionDescription(execution: Execution): ExecutionDescription {
  return {
    executionArn: execution.executionArn,
    stateMachineArn: execution.stateMachineArn,
    name: execution.name,
    status: execution.status,
    startDate: execution.startDate,
    input: execution.input,
    ...(execution.stopDate ? { stopDate: execution.stopDate } : {}),
    ...(execution.output === undefined ? {} : { output: execution.output }),
    ...(execution.error === undefined ? {} : { error: execution.error }),
    ...(execution.cause === undefined ? {} : { cause: execution.cause }),
  };
}

export function describeFailure(failure: unknown): { error: string; cause: string } {
  // By name: the engine's copy on a virtual clock has its own ExecutionError class (./engine.ts).
  const wrapped = failure instanceof Error && failure.name === 'ExecutionError';
  const root = wrapped && failure.cause instanceof Error ? failure.cause : failure;
  if (root instanceof Error) return { error: root.name, cause: root.message };
  return { error: 'States.Runtime', cause: String(root) };
}

/** States.DataLimitExceeded: terminal, so neither Retry nor Catch (States.ALL) takes it (limits.ts). */
export function dataLimitExceeded(cause: string): TaskFailure {
  return new TaskFailure(DATA_LIMIT_EXCEEDED, cause, { terminal: true });
}

export function parsePayload(text: string, errorType: string, what: 'input' | 'output'): unknown {
  if (Buffer.byteLength(text, 'utf8') > MAX_PAYLOAD_BYTES) {
    throw new SfnApiError('ValidationException', payloadConstraintMessage(what));
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new SfnApiError(errorType, `Invalid ${what}: not JSON (${(error as Error).message})`);
  }
}

/** Page tokens: opaque to callers, the position to go on from. */
export function encodeToken(position: Record<string, unknown>): string {
  return Buffer.from(JSON.stringify(position)).toString('base64url');
}

export function decodeToken(token: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    if (typeof parsed === 'object' && parsed !== null) return parsed as Record<string, unknown>;
  } catch {
    // Falls through: the caller names the operation in its error.
  }
  return {};
}

export function decodePageToken(token: string): number {
  const { before } = decodeToken(token);
  if (typeof before === 'number') return before;
  throw new SfnApiError('InvalidToken', 'Invalid Token: nextToken was not returned by ListExecutions');
}

export function decodeHistoryToken(token: string, execution: Execution, reverse: boolean): number {
  const position = decodeToken(token);
  if (
    position.history !== execution.executionArn ||
    position.reverse !== reverse ||
    typeof position.from !== 'number' ||
    !Number.isInteger(position.from) ||
    position.from < 0
  ) {
    throw new SfnApiError(
      'InvalidToken',
      'Invalid Token: nextToken was not returned by GetExecutionHistory for this execution and order',
    );
  }
  return position.from;
}
