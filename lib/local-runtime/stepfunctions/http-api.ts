/**
 * The operations of the Step Functions API (AWS JSON 1.0, `X-Amz-Target: AWSStepFunctions.<Op>`),
 * served by the runtime's AWS JSON protocol server. Timestamps are epoch seconds, as the protocol
 * (and the AWS SDK) expect.
 */
import type {
  DescribeExecutionInput,
  DescribeStateMachineForExecutionInput,
  DescribeStateMachineInput,
  GetExecutionHistoryInput,
  ListExecutionsInput,
  ListStateMachinesInput,
  SendTaskFailureInput,
  SendTaskHeartbeatInput,
  SendTaskSuccessInput,
  StartExecutionInput,
  StopExecutionInput,
} from '@aws-sdk/client-sfn';
import { type AwsJsonOperation, typedRequest, type WireRequest } from '../protocol/aws-json-server';
import { SfnApiError } from './errors';
import { historyEventBody } from './history';
import { lengthConstraintMessage, MAX_TASK_TOKEN_LENGTH } from './limits';
import type { StepFunctionsRuntime } from './runtime';
import type { ExecutionDescription, ExecutionStatus, StateMachineDescription } from './runtime-types';

export const TARGET_PREFIX = 'AWSStepFunctions.';
/** Requests above this size are refused before parsing (inputs are limited to 256 KiB anyway). */
export const MAX_REQUEST_BYTES = 1024 * 1024;
const EXECUTION_STATUSES: readonly ExecutionStatus[] = [
  'RUNNING',
  'SUCCEEDED',
  'FAILED',
  'TIMED_OUT',
  'ABORTED',
];

type Body = Record<string, unknown>;

function epochSeconds(date: Date): number {
  return date.getTime() / 1000;
}

function requiredString<T>(body: WireRequest<T>, field: keyof T & string): string {
  const value = body[field];
  if (typeof value !== 'string' || value === '') {
    throw new SfnApiError(
      'ValidationException',
      `1 validation error detected: '${field}' must be a non-empty string`,
    );
  }
  return value;
}

function optionalString<T>(body: WireRequest<T>, field: keyof T & string): string | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') {
    throw new SfnApiError('ValidationException', `1 validation error detected: '${field}' must be a string`);
  }
  return value;
}

function optionalBoolean<T>(body: WireRequest<T>, field: keyof T & string): boolean | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean') {
    throw new SfnApiError('ValidationException', `1 validation error detected: '${field}' must be a boolean`);
  }
  return value;
}

/** maxResults as the SFN API takes it: an integer from 0 to 1000 (0 or absent: the default page). */
function maxResults(body: WireRequest<{ maxResults?: number }>): number | undefined {
  const value = body.maxResults;
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 1000) {
    throw new SfnApiError('ValidationException', 'maxResults must be an integer from 0 to 1000');
  }
  return value;
}

/** What DescribeStateMachine and DescribeStateMachineForExecution share. */
function stateMachineBody(machine: StateMachineDescription): Body {
  return {
    stateMachineArn: machine.stateMachineArn,
    name: machine.name,
    definition: machine.definition,
    roleArn: machine.roleArn,
    // AWS's answer for a state machine created without logging or X-Ray tracing.
    loggingConfiguration: { level: 'OFF', includeExecutionData: false },
    tracingConfiguration: { enabled: false },
  };
}

function taskToken(body: WireRequest<{ taskToken: string }>): string {
  const token = requiredString(body, 'taskToken');
  if (token.length > MAX_TASK_TOKEN_LENGTH) {
    throw new SfnApiError(
      'ValidationException',
      lengthConstraintMessage('taskToken', token, MAX_TASK_TOKEN_LENGTH),
    );
  }
  return token;
}

function executionBody(execution: ExecutionDescription, full: boolean): Body {
  return {
    executionArn: execution.executionArn,
    stateMachineArn: execution.stateMachineArn,
    name: execution.name,
    status: execution.status,
    startDate: epochSeconds(execution.startDate),
    ...(execution.stopDate ? { stopDate: epochSeconds(execution.stopDate) } : {}),
    ...(full
      ? {
          input: execution.input,
          inputDetails: { included: true },
          ...(execution.output === undefined
            ? {}
            : { output: execution.output, outputDetails: { included: true } }),
          ...(execution.error === undefined ? {} : { error: execution.error }),
          ...(execution.cause === undefined ? {} : { cause: execution.cause }),
        }
      : {}),
  };
}

export function operations(runtime: StepFunctionsRuntime): Readonly<Record<string, AwsJsonOperation>> {
  return {
    StartExecution: typedRequest<StartExecutionInput>((body) => {
      const name = optionalString(body, 'name');
      const input = optionalString(body, 'input');
      const started = runtime.startExecution({
        stateMachineArn: requiredString(body, 'stateMachineArn'),
        ...(name === undefined ? {} : { name }),
        ...(input === undefined ? {} : { input }),
      });
      return { executionArn: started.executionArn, startDate: epochSeconds(started.startDate) };
    }),
    DescribeExecution: typedRequest<DescribeExecutionInput>((body) =>
      executionBody(runtime.describeExecution(requiredString(body, 'executionArn')), true),
    ),
    ListExecutions: typedRequest<ListExecutionsInput>((body) => {
      const statusFilter = optionalString(body, 'statusFilter');
      if (statusFilter !== undefined && !EXECUTION_STATUSES.includes(statusFilter as ExecutionStatus)) {
        throw new SfnApiError(
          'ValidationException',
          `statusFilter must be one of ${EXECUTION_STATUSES.join(', ')}`,
        );
      }
      const pageSize = maxResults(body);
      const nextToken = optionalString(body, 'nextToken');
      const page = runtime.listExecutions({
        stateMachineArn: requiredString(body, 'stateMachineArn'),
        ...(statusFilter === undefined ? {} : { statusFilter: statusFilter as ExecutionStatus }),
        ...(pageSize === undefined ? {} : { maxResults: pageSize }),
        ...(nextToken === undefined ? {} : { nextToken }),
      });
      return {
        executions: page.executions.map((execution) => executionBody(execution, false)),
        ...(page.nextToken === undefined ? {} : { nextToken: page.nextToken }),
      };
    }),
    StopExecution: typedRequest<StopExecutionInput>((body) => {
      const error = optionalString(body, 'error');
      const cause = optionalString(body, 'cause');
      const stopped = runtime.stopExecution({
        executionArn: requiredString(body, 'executionArn'),
        ...(error === undefined ? {} : { error }),
        ...(cause === undefined ? {} : { cause }),
      });
      return { stopDate: epochSeconds(stopped.stopDate) };
    }),
    SendTaskSuccess: typedRequest<SendTaskSuccessInput>((body) => {
      runtime.sendTaskSuccess(taskToken(body), requiredString(body, 'output'));
      return {};
    }),
    SendTaskFailure: typedRequest<SendTaskFailureInput>((body) => {
      runtime.sendTaskFailure(taskToken(body), optionalString(body, 'error'), optionalString(body, 'cause'));
      return {};
    }),
    SendTaskHeartbeat: typedRequest<SendTaskHeartbeatInput>((body) => {
      runtime.sendTaskHeartbeat(taskToken(body));
      return {};
    }),
    GetExecutionHistory: typedRequest<GetExecutionHistoryInput>((body) => {
      const pageSize = maxResults(body);
      const reverseOrder = optionalBoolean(body, 'reverseOrder');
      const nextToken = optionalString(body, 'nextToken');
      const page = runtime.getExecutionHistory({
        executionArn: requiredString(body, 'executionArn'),
        ...(pageSize === undefined ? {} : { maxResults: pageSize }),
        ...(reverseOrder === undefined ? {} : { reverseOrder }),
        ...(nextToken === undefined ? {} : { nextToken }),
      });
      const includeExecutionData = optionalBoolean(body, 'includeExecutionData') ?? true;
      return {
        events: page.events.map((event) => historyEventBody(event, includeExecutionData)),
        ...(page.nextToken === undefined ? {} : { nextToken: page.nextToken }),
      };
    }),
    ListStateMachines: typedRequest<ListStateMachinesInput>((body) => {
      const pageSize = maxResults(body) || 100;
      const nextToken = optionalString(body, 'nextToken');
      const machines = runtime.listStateMachines();
      const from = nextToken === undefined ? 0 : Number(Buffer.from(nextToken, 'base64url').toString('utf8'));
      if (!Number.isInteger(from) || from < 0 || from > machines.length) {
        throw new SfnApiError(
          'InvalidToken',
          'Invalid Token: nextToken was not returned by ListStateMachines',
        );
      }
      const page = machines.slice(from, from + pageSize);
      const next = from + page.length;
      return {
        stateMachines: page.map((machine) => ({
          stateMachineArn: machine.stateMachineArn,
          name: machine.name,
          type: machine.type,
          creationDate: epochSeconds(machine.creationDate),
        })),
        ...(next < machines.length ? { nextToken: Buffer.from(String(next)).toString('base64url') } : {}),
      };
    }),
    DescribeStateMachine: typedRequest<DescribeStateMachineInput>((body) => {
      const machine = runtime.describeStateMachine(requiredString(body, 'stateMachineArn'));
      return {
        ...stateMachineBody(machine),
        status: 'ACTIVE',
        type: machine.type,
        creationDate: epochSeconds(machine.creationDate),
      };
    }),
    DescribeStateMachineForExecution: typedRequest<DescribeStateMachineForExecutionInput>((body) => {
      const machine = runtime.describeStateMachineForExecution(requiredString(body, 'executionArn'));
      return { ...stateMachineBody(machine), updateDate: epochSeconds(machine.creationDate) };
    }),
  };
}
