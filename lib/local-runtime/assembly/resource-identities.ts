/**
 * The local identities of a stack's resources: the physical name a resource gets when its template
 * names none (as CloudFormation generates one, within each type's length limit), what `Ref` answers,
 * and the value of each `Fn::GetAtt` the runtime supports, per resource type. A table read by the stack resolver
 * (cloud-assembly.ts), which resolves the intrinsics around it.
 */
import { createHash } from 'node:crypto';
import { busNameOf, ruleArn } from '../eventbridge/event-buses';
import { IntrinsicError } from './intrinsics';
import type { CfnResource, LocalEnvironment } from './template-types';

/** Maximum physical name lengths, so derived names are valid where AWS enforces a limit. */
const NAME_LIMITS: Record<string, number> = {
  'AWS::SQS::Queue': 80,
  'AWS::Lambda::Function': 64,
  'AWS::DynamoDB::Table': 255,
  'AWS::SNS::Topic': 256,
  'AWS::StepFunctions::StateMachine': 80,
  'AWS::Events::Rule': 64,
  'AWS::Events::EventBus': 256,
  'AWS::IAM::Role': 64,
};

/** Explicit name properties: when the template sets one, that is the physical name. */
export const NAME_PROPERTIES: Record<string, string> = {
  'AWS::SQS::Queue': 'QueueName',
  'AWS::Lambda::Function': 'FunctionName',
  'AWS::DynamoDB::Table': 'TableName',
  'AWS::SNS::Topic': 'TopicName',
  'AWS::StepFunctions::StateMachine': 'StateMachineName',
  'AWS::Events::Rule': 'Name',
  'AWS::Events::EventBus': 'Name',
  'AWS::IAM::Role': 'RoleName',
  'AWS::Logs::LogGroup': 'LogGroupName',
  'AWS::CloudWatch::Alarm': 'AlarmName',
};

export function shortHash(text: string, length = 8): string {
  return createHash('sha256').update(text).digest('hex').slice(0, length);
}

/** `${stackName}-${logicalId}`, shortened with a stable hash when it exceeds the type's limit. */
export function generatedPhysicalName(stackName: string, logicalId: string, type: string): string {
  const limit = NAME_LIMITS[type] ?? 128;
  const base = `${stackName}-${logicalId}`.replace(/[^A-Za-z0-9_-]/g, '-');
  if (base.length <= limit) return base;
  const hash = shortHash(base);
  return `${base.slice(0, limit - hash.length - 1)}-${hash}`;
}

/** The physical name of a resource whose template sets none (FIFO names end with .fifo; API and key ids are short hashes). */
export function implicitPhysicalName(stackName: string, logicalId: string, resource: CfnResource): string {
  if (resource.Type === 'AWS::SQS::Queue' && resource.Properties?.FifoQueue === true) {
    return `${generatedPhysicalName(stackName, logicalId, resource.Type).slice(0, 75)}.fifo`;
  }
  if (resource.Type === 'AWS::SNS::Topic' && resource.Properties?.FifoTopic === true) {
    // A FIFO topic's name must end with .fifo, as a FIFO queue's does.
    return `${generatedPhysicalName(stackName, logicalId, resource.Type).slice(0, 251)}.fifo`;
  }
  if (resource.Type.startsWith('AWS::ApiGateway::') || resource.Type === 'AWS::KMS::Key') {
    // Ids, not names: short and lower-case like the ones AWS hands out.
    return shortHash(`${stackName}/${logicalId}`, 10);
  }
  return generatedPhysicalName(stackName, logicalId, resource.Type);
}

/** What the attribute table knows of the resource asked about. */
export interface AttributeSubject {
  readonly logicalId: string;
  readonly type: string;
  /** Its physical name (or id). */
  readonly name: string;
  /** An ARN in the local account and region (`region` '' for global services such as IAM). */
  arn(service: string, resource: string, region?: string): string;
  queueUrl(name: string): string;
  readonly env: LocalEnvironment;
  /** Resolved Properties of a resource of the stack. */
  properties(logicalId: string): Record<string, unknown>;
}

/** `Ref` of one resource: its name, or what AWS answers instead for the types that differ. */
export function referenceOf(subject: AttributeSubject): unknown {
  const { logicalId, type, name, arn, queueUrl, properties } = subject;
  switch (type) {
    case 'AWS::SQS::Queue':
      return queueUrl(name);
    case 'AWS::SNS::Topic':
      return arn('sns', name);
    case 'AWS::StepFunctions::StateMachine':
      return arn('states', `stateMachine:${name}`);
    case 'AWS::Lambda::Url':
      return attributeOf(subject, 'FunctionArn');
    case 'AWS::ApiGateway::Stage':
      return String(properties(logicalId).StageName);
    case 'AWS::IAM::ManagedPolicy':
      return arn('iam', `policy/${name}`, '');
    default:
      return name;
  }
}

/** `Fn::GetAtt` of one resource: one case per resource type, one line per attribute. */
export function attributeOf(subject: AttributeSubject, attribute: string): unknown {
  const { logicalId, type, name, arn, queueUrl, env, properties } = subject;
  const fail = (): never => {
    throw new IntrinsicError(
      `Fn::GetAtt ${logicalId}.${attribute}`,
      `attribute ${attribute} of ${type} is not supported by the local runtime`,
    );
  };
  switch (type) {
    case 'AWS::SQS::Queue':
      if (attribute === 'Arn') return arn('sqs', name);
      if (attribute === 'QueueUrl') return queueUrl(name);
      if (attribute === 'QueueName') return name;
      return fail();
    case 'AWS::DynamoDB::Table':
      if (attribute === 'Arn') return arn('dynamodb', `table/${name}`);
      if (attribute === 'StreamArn') {
        return env.tableStreamArn?.(logicalId) ?? arn('dynamodb', `table/${name}/stream/local`);
      }
      return fail();
    case 'AWS::Lambda::Function':
      if (attribute === 'Arn') return arn('lambda', `function:${name}`);
      return fail();
    case 'AWS::Lambda::Url': {
      if (attribute === 'FunctionUrl') return env.functionUrl(logicalId);
      if (attribute === 'FunctionArn') {
        const target = properties(logicalId).TargetFunctionArn;
        return typeof target === 'string' && target.startsWith('arn:')
          ? target
          : arn('lambda', `function:${String(target)}`);
      }
      return fail();
    }
    case 'AWS::SNS::Topic':
      if (attribute === 'TopicArn') return arn('sns', name);
      if (attribute === 'TopicName') return name;
      return fail();
    case 'AWS::StepFunctions::StateMachine':
      if (attribute === 'Arn') return arn('states', `stateMachine:${name}`);
      if (attribute === 'Name') return name;
      return fail();
    case 'AWS::Events::EventBus':
      if (attribute === 'Arn') return arn('events', `event-bus/${name}`);
      if (attribute === 'Name') return name;
      return fail();
    case 'AWS::Events::Rule': {
      if (attribute !== 'Arn') return fail();
      // `rule/<name>` on the default bus, `rule/<bus>/<name>` on another (the bus by name or ARN).
      return ruleArn(env.region, env.accountId, busNameOf(properties(logicalId).EventBusName), name);
    }
    case 'AWS::ApiGateway::RestApi':
      if (attribute === 'RootResourceId') return `${name}-root`;
      if (attribute === 'RestApiId') return name;
      return fail();
    case 'AWS::IAM::Role':
      if (attribute === 'Arn') return arn('iam', `role/${name}`, '');
      if (attribute === 'RoleId') return `AROA${shortHash(name, 16).toUpperCase()}`;
      return fail();
    case 'AWS::Logs::LogGroup':
      if (attribute === 'Arn') return arn('logs', `log-group:${name}:*`);
      return fail();
    case 'AWS::CloudWatch::Alarm':
      if (attribute === 'Arn') return arn('cloudwatch', `alarm:${name}`);
      return fail();
    case 'AWS::KMS::Key':
      if (attribute === 'Arn') return arn('kms', `key/${name}`);
      if (attribute === 'KeyId') return name;
      return fail();
    default:
      // Attributes of resources the runtime does not run (alarms, policies...) only feed other
      // inert resources; a stable placeholder keeps their resolution from failing.
      if (attribute === 'Arn') {
        const service = type.split('::')[1]?.toLowerCase() ?? 'unknown';
        return arn(service, name);
      }
      return `${name}.${attribute}`;
  }
}
