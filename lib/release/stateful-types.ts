/**
 * The resource types that hold something a new resource of the same type would not have: replacing
 * or deleting one loses it (or strands it in an orphan the stack no longer uses), so the upgrade
 * check fails on it. Each type says what it holds. Chosen by looking at both stacks' templates in
 * every released configuration (and the types the issue names); a type the templates start using
 * belongs here when it holds data.
 *
 * Not stateful, though they look it:
 * - AWS::Logs::LogGroup: telemetry with a retention period (the platform's `logRetentionDays`),
 *   read by operators, never by the app; every one here is `DeletionPolicy: Retain`, so a replaced
 *   function's old log group and its logs stay readable until they expire.
 * - AWS::EventSchemas::Registry / Schema: everything they hold is written from the template (each
 *   schema's content), so a new registry is refilled by the same deployment; only the registry's own
 *   version numbering restarts.
 * - AWS::Cognito::IdentityPool: identity ids for signed-in operators, keyed by nothing the app
 *   stores; a new pool hands out new ones at the next sign-in.
 * - AWS::CloudWatch::Alarm, Dashboard: state and history are recomputed from metrics.
 *
 * What deleting one does, from AWS's pages:
 * - a queue is deleted with its messages: https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_DeleteQueue.html
 * - a topic with its subscriptions: https://docs.aws.amazon.com/sns/latest/api/API_DeleteTopic.html
 * - a KMS key, after its waiting period, makes what it encrypted unrecoverable:
 *   https://docs.aws.amazon.com/kms/latest/developerguide/deleting-keys.html
 * - a state machine's executions are terminated at their next state transition:
 *   https://docs.aws.amazon.com/step-functions/latest/apireference/API_DeleteStateMachine.html
 * - an API key without a `Value` (every key here) has one API Gateway generated: docs/deploy.md's
 *   steps read it back with `aws apigateway get-api-key --include-value`. AWS's reference pages do
 *   not say it in words (not confirmed there).
 */
export const STATEFUL_TYPES: Readonly<Record<string, string>> = {
  'AWS::DynamoDB::Table': 'its items (and its stream)',
  'AWS::DynamoDB::GlobalTable': 'its items in every replica',
  'AWS::SQS::Queue': 'the messages in flight and waiting, dead letters included',
  'AWS::SNS::Topic': 'subscriptions made outside the template (consumers, confirmed email addresses)',
  'AWS::KMS::Key': 'the key material: what it encrypted can no longer be decrypted once it is deleted',
  'AWS::Cognito::UserPool': 'the users (operators) and their passwords',
  'AWS::S3::Bucket': 'its objects (the console page, access logs)',
  'AWS::Events::EventBus':
    "the rules consumers add to it at run time (README, 'Subscribing a new downstream consumer')",
  'AWS::Events::Archive': 'the archived events a replay reads',
  'AWS::StepFunctions::StateMachine':
    'its running executions (orders waiting on task tokens), which are terminated when it is deleted',
  'AWS::ApiGateway::ApiKey': 'the key value API Gateway generated, which clients hold',
};

/** Whether a resource type holds state (see STATEFUL_TYPES). */
export const isStateful = (type: string | undefined): boolean =>
  type !== undefined && Object.hasOwn(STATEFUL_TYPES, type);
