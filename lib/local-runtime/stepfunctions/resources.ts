/**
 * Which service integration a Task `Resource` names. Pure: the classification is decided once per
 * definition at registration, so an execution never has to guess at run time.
 */

/** How Step Functions waits on an integration (only these two run locally). */
export type IntegrationPattern = 'request-response' | 'wait-for-task-token';

export type DynamoDbAction = 'getItem' | 'putItem' | 'updateItem' | 'deleteItem';

export type TaskIntegration =
  | { readonly service: 'dynamodb'; readonly action: DynamoDbAction; readonly pattern: IntegrationPattern }
  | { readonly service: 'sqs'; readonly action: 'sendMessage'; readonly pattern: IntegrationPattern }
  | { readonly service: 'events'; readonly action: 'putEvents'; readonly pattern: IntegrationPattern }
  | { readonly service: 'lambda'; readonly action: 'invoke'; readonly pattern: IntegrationPattern }
  /** A plain Lambda function ARN as Resource: the state input is the payload, the payload the result. */
  | {
      readonly service: 'lambda-function';
      readonly functionArn: string;
      readonly pattern: 'request-response';
    }
  | { readonly service: 'unsupported'; readonly reason: string };

/** The integrations this runtime implements, for error messages. */
export const SUPPORTED_RESOURCES: readonly string[] = [
  'arn:<partition>:states:::dynamodb:getItem|putItem|updateItem|deleteItem',
  'arn:<partition>:states:::sqs:sendMessage[.waitForTaskToken]',
  'arn:<partition>:states:::events:putEvents[.waitForTaskToken]',
  'arn:<partition>:states:::lambda:invoke[.waitForTaskToken]',
  'arn:<partition>:lambda:<region>:<account>:function:<name>[:<qualifier>]',
];

const OPTIMIZED_INTEGRATION = /^arn:aws[a-z-]*:states:::([a-z0-9-]+):([A-Za-z0-9]+)(?:\.([A-Za-z0-9:]+))?$/;
const LAMBDA_FUNCTION_ARN =
  /^arn:aws[a-z-]*:lambda:[a-z0-9-]+:\d{12}:function:[A-Za-z0-9_-]{1,64}(?::[A-Za-z0-9$_-]+)?$/;
const DYNAMODB_ACTIONS: readonly string[] = ['getItem', 'putItem', 'updateItem', 'deleteItem'];

export function classifyResource(resource: string): TaskIntegration {
  if (LAMBDA_FUNCTION_ARN.test(resource)) {
    return { service: 'lambda-function', functionArn: resource, pattern: 'request-response' };
  }
  const match = OPTIMIZED_INTEGRATION.exec(resource);
  if (!match) {
    return { service: 'unsupported', reason: 'it is not a service integration or Lambda function ARN' };
  }
  const [, service = '', action = '', suffix] = match;
  let pattern: IntegrationPattern;
  if (suffix === undefined) {
    pattern = 'request-response';
  } else if (suffix === 'waitForTaskToken') {
    pattern = 'wait-for-task-token';
  } else {
    return {
      service: 'unsupported',
      reason: `the '.${suffix}' integration pattern is not supported by the local runtime (only request-response and .waitForTaskToken)`,
    };
  }
  if (service === 'dynamodb' && DYNAMODB_ACTIONS.includes(action)) {
    if (pattern !== 'request-response') {
      return { service: 'unsupported', reason: 'DynamoDB integrations do not support .waitForTaskToken' };
    }
    return { service: 'dynamodb', action: action as DynamoDbAction, pattern };
  }
  if (service === 'sqs' && action === 'sendMessage') return { service: 'sqs', action, pattern };
  if (service === 'events' && action === 'putEvents') return { service: 'events', action, pattern };
  if (service === 'lambda' && action === 'invoke') return { service: 'lambda', action, pattern };
  return {
    service: 'unsupported',
    reason: `the integration '${service}:${action}' is not supported by the local runtime`,
  };
}

/**
 * How execution history names a Task's resource: `arn:aws:states:::sqs:sendMessage.waitForTaskToken`
 * is resourceType `sqs`, resource `sendMessage.waitForTaskToken`.
 */
export function historyResource(resource: string): {
  readonly resourceType: string;
  readonly resource: string;
} {
  const integration = /^arn:aws[a-z-]*:states:::([a-z0-9-]+):(.+)$/.exec(resource);
  if (integration?.[1] && integration[2]) return { resourceType: integration[1], resource: integration[2] };
  const [, , service = 'unknown', , , ...rest] = resource.split(':');
  return { resourceType: service, resource: rest.join(':') || resource };
}
