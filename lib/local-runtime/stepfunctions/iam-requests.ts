/**
 * What IAM is asked for each Step Functions API operation the runtime serves: `states:<Operation>`
 * on the resource the Service Authorization Reference names
 * (https://docs.aws.amazon.com/service-authorization/latest/reference/list_awsstepfunctions.html):
 * the state machine for StartExecution, ListExecutions and DescribeStateMachine, the execution for
 * DescribeExecution, StopExecution, GetExecutionHistory and DescribeStateMachineForExecution, `*`
 * for ListStateMachines.
 *
 * SendTaskSuccess, SendTaskFailure and SendTaskHeartbeat: the reference lists no resource type for
 * them, yet AWS evaluates them against the state machine of the token's execution: users'
 * AccessDenied messages read "is not authorized to perform: states:SendTaskSuccess on resource:
 * arn:aws:states:...:stateMachine:<name>", and CDK's grantTaskResponse grants them on the state
 * machine. So the resource is the state machine of the execution the token was issued to. A token
 * the runtime does not know (malformed, or forgotten) is not authorized against anything: its answer
 * is InvalidToken, which tells nothing and changes nothing (the caller is still authenticated).
 */
import type { RequestCheck } from '../iam/request-check';
import type { StepFunctionsRuntime } from './runtime';

/** What the Step Functions API asks IAM of one request (the runtime's IAM decides). */
export type StepFunctionsCheck = RequestCheck;

type Body = Record<string, unknown>;

/** `arn:aws:states:<r>:<a>:execution:<machine>:<name>` -> `arn:aws:states:<r>:<a>:stateMachine:<machine>`. */
export function stateMachineOfExecution(executionArn: string): string {
  const match = /^(arn:aws[a-z-]*:states:[^:]*:[^:]*):(?:execution|express):([^:]+):[^:]+$/.exec(
    executionArn,
  );
  return match ? `${match[1]}:stateMachine:${match[2]}` : executionArn;
}

export function stepFunctionsChecks(
  runtime: Pick<StepFunctionsRuntime, 'executionOfTaskToken'>,
  operationName: string,
  body: Body,
): StepFunctionsCheck[] {
  const action = `states:${operationName}`;
  const text = (field: string) => (typeof body[field] === 'string' ? (body[field] as string) : '');
  switch (operationName) {
    case 'StartExecution':
    case 'StartSyncExecution':
    case 'ListExecutions':
    case 'DescribeStateMachine':
      return [{ action, resource: text('stateMachineArn') }];
    case 'DescribeExecution':
    case 'StopExecution':
    case 'GetExecutionHistory':
    case 'DescribeStateMachineForExecution':
      return [{ action, resource: text('executionArn') }];
    case 'SendTaskSuccess':
    case 'SendTaskFailure':
    case 'SendTaskHeartbeat': {
      const execution = runtime.executionOfTaskToken(text('taskToken'));
      return execution === undefined ? [] : [{ action, resource: stateMachineOfExecution(execution) }];
    }
    default:
      return [{ action, resource: '*' }];
  }
}
