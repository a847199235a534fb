/**
 * CloudFormation does not replace a resource that has a custom name: "You can't perform an update
 * that causes a custom-named resource to be replaced. If you must replace the resource, specify a
 * new name." (https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-properties-name.html).
 * The stack update fails ("CloudFormation cannot update a stack when a custom-named resource
 * requires replacing", https://repost.aws/knowledge-center/cloudformation-custom-name).
 *
 * Each type has its own name property (its page in the template reference); these are the types
 * the templates name, or could: the FIFO topic (a FIFO topic's name must end in `.fifo`), the event
 * buses, log groups, and the stateful types.
 */
import { deepEqual } from '@aws-cdk/cloudformation-diff';

export const NAME_PROPERTIES: Readonly<Record<string, string>> = {
  'AWS::DynamoDB::Table': 'TableName',
  'AWS::DynamoDB::GlobalTable': 'TableName',
  'AWS::SQS::Queue': 'QueueName',
  'AWS::SNS::Topic': 'TopicName',
  'AWS::S3::Bucket': 'BucketName',
  'AWS::Events::EventBus': 'Name',
  'AWS::Events::Archive': 'ArchiveName',
  'AWS::Events::Rule': 'Name',
  'AWS::Logs::LogGroup': 'LogGroupName',
  'AWS::StepFunctions::StateMachine': 'StateMachineName',
  'AWS::Lambda::Function': 'FunctionName',
  'AWS::IAM::Role': 'RoleName',
  'AWS::KMS::Alias': 'AliasName',
  'AWS::EventSchemas::Registry': 'RegistryName',
  'AWS::EventSchemas::Schema': 'SchemaName',
};

/** The custom name a resource of `type` keeps across an update, or undefined when it has none or it changes. */
export function keptCustomName(
  type: string,
  before: Readonly<Record<string, unknown>> | undefined,
  after: Readonly<Record<string, unknown>> | undefined,
): unknown {
  const property = NAME_PROPERTIES[type];
  if (property === undefined) return undefined;
  const name = before?.[property];
  return name !== undefined && deepEqual(name, after?.[property]) ? name : undefined;
}
