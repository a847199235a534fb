import { Duration } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import type { Construct } from 'constructs';
import { StateAttr } from '../../../lambdas/scheduler-agent-supervisor/contracts';
import { ExecutionInput, WorkflowPath } from './execution-data';

/**
 * Explicit TimeoutSeconds of every DynamoDB and EventBridge task: each is one small request, so
 * anything slower is an outage better handled as a failed attempt than as a stuck execution.
 */
export const DATA_TASK_TIMEOUT_SECONDS = 10;

/**
 * Retry budget of the data tasks (a later issue budgets all layers end to end): at most
 * 1 + DATA_TASK_MAX_RETRIES calls per task, and only for throttling and service-side errors.
 * Every store update is idempotent under retry (same values, same fence), and the fencing
 * failure (ConditionalCheckFailedException) is never retried.
 */
export const DATA_TASK_MAX_RETRIES = 2;
const DYNAMODB_RETRYABLE_ERRORS = [
  'DynamoDB.ProvisionedThroughputExceededException',
  'DynamoDB.RequestLimitExceeded',
  'DynamoDB.ThrottlingException',
  'DynamoDB.InternalServerErrorException',
  // The name Step Functions gives DynamoDB service errors without a more specific class.
  'DynamoDB.AmazonDynamoDBException',
];

/** The error a direct DynamoDB integration raises when a condition (here: the fence) fails. */
export const CONDITIONAL_CHECK_FAILED = 'DynamoDB.ConditionalCheckFailedException';

const RETRY_SHAPE = {
  maxAttempts: DATA_TASK_MAX_RETRIES,
  interval: Duration.seconds(1),
  backoffRate: 2,
  jitterStrategy: sfn.JitterType.FULL,
} as const;

export function dataTaskTimeout(): sfn.Timeout {
  return sfn.Timeout.duration(Duration.seconds(DATA_TASK_TIMEOUT_SECONDS));
}

/** Adds the bounded retry of throttling and service errors to a DynamoDB task. */
export function withDataRetry<T extends sfn.TaskStateBase>(task: T): T {
  task.addRetry({ errors: DYNAMODB_RETRYABLE_ERRORS, ...RETRY_SHAPE });
  return task;
}

/** Key of the order's items in both tables: the execution's orderId. */
export function orderKey(): Record<string, tasks.DynamoAttributeValue> {
  return {
    [StateAttr.OrderId]: tasks.DynamoAttributeValue.fromString(sfn.JsonPath.stringAt(ExecutionInput.orderId)),
  };
}

/**
 * A consistent GetItem of the order's item in `table`, kept at `resultPath`. Consistent because
 * both items are read right after being written: the state record by the starter's claim, the
 * order by the submission just before the state record.
 */
function consistentRead(
  scope: Construct,
  id: string,
  props: { readonly comment: string; readonly table: dynamodb.ITable; readonly resultPath: string },
): sfn.TaskStateBase {
  return withDataRetry(
    tasks.DynamoGetItem.jsonPath(scope, id, {
      comment: props.comment,
      table: props.table,
      key: orderKey(),
      consistentRead: true,
      resultPath: props.resultPath,
      taskTimeout: dataTaskTimeout(),
    }),
  );
}

/** `LoadStateRecord`: the lock and the plan of this attempt. */
export function loadStateRecord(scope: Construct, stateTable: dynamodb.ITable): sfn.TaskStateBase {
  return consistentRead(scope, 'LoadStateRecord', {
    comment: 'Consistent read of the state record: the lock and the plan of this attempt.',
    table: stateTable,
    resultPath: WorkflowPath.record,
  });
}

/** `LoadOrder`: the immutable order from the business database, for the agents. */
export function loadOrder(scope: Construct, ordersTable: dynamodb.ITable): sfn.TaskStateBase {
  return consistentRead(scope, 'LoadOrder', {
    comment: 'The immutable order from the business database, for the agents.',
    table: ordersTable,
    resultPath: WorkflowPath.order,
  });
}
