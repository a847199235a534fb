/**
 * Reads a synthesized cloud assembly (cdk.out) and gives each stack LOCAL identities: physical
 * names derived from logical ids (CloudFormation generates names; the app relies on generated names
 * only), ARNs in the local account, and URLs on the local emulators. Intrinsics in the template are
 * resolved against those identities (see intrinsics.ts).
 */
import { createHash } from 'node:crypto';
import { dirname, join } from 'node:path';
import {
  AssetManifestArtifact,
  CloudAssembly as CdkCloudAssembly,
  type CloudFormationStackArtifact,
} from 'aws-cdk-lib/cx-api';
import { busNameOf, ruleArn } from '../eventbridge/event-buses';
import { type IntrinsicContext, IntrinsicError, resolveIntrinsics } from './intrinsics';

export interface CfnResource {
  readonly Type: string;
  readonly Properties?: Record<string, unknown>;
  readonly Metadata?: Record<string, unknown>;
  readonly Condition?: string;
  readonly DependsOn?: string | string[];
}

export interface CfnTemplate {
  readonly Resources?: Record<string, CfnResource>;
  readonly Outputs?: Record<string, { readonly Value: unknown; readonly Condition?: string }>;
  readonly Parameters?: Record<string, { readonly Default?: unknown; readonly Type?: string }>;
  readonly Conditions?: Record<string, unknown>;
  readonly Mappings?: Record<string, Record<string, Record<string, unknown>>>;
}

export interface AssemblyStack {
  readonly stackName: string;
  /** Artifact id in manifest.json (usually the construct id of the stack). */
  readonly artifactId: string;
  readonly template: CfnTemplate;
  readonly templatePath: string;
  /** File assets of the stack by S3 object key (e.g. `<hash>.zip`): absolute local directory or file. */
  readonly fileAssets: ReadonlyMap<string, string>;
}

export interface CloudAssembly {
  readonly directory: string;
  readonly stacks: readonly AssemblyStack[];
}

/** The stack's file assets (from its asset manifest artifacts), by S3 object key. */
function fileAssetsOf(stack: CloudFormationStackArtifact): Map<string, string> {
  const assets = new Map<string, string>();
  for (const dependency of stack.dependencies) {
    if (!AssetManifestArtifact.isAssetManifestArtifact(dependency)) continue;
    const manifestDirectory = dirname(dependency.file);
    for (const file of Object.values(dependency.contents.files ?? {})) {
      for (const destination of Object.values(file.destinations)) {
        assets.set(destination.objectKey, join(manifestDirectory, file.source.path ?? ''));
      }
    }
  }
  return assets;
}

/**
 * Reads the assembly with the CDK's own reader (aws-cdk-lib/cx-api): manifest, stack templates
 * (nested stage assemblies included) and asset manifests, whatever wrote them (`cdk synth -o DIR`
 * or an in-process `app.synth()`). Offline: it only reads files.
 */
export function readCloudAssembly(directory: string): CloudAssembly {
  let assembly: CdkCloudAssembly;
  try {
    assembly = new CdkCloudAssembly(directory);
  } catch (error) {
    throw new Error(
      `Cannot read the cloud assembly in ${directory} (${(error as Error).message}). ` +
        'Synthesize first, e.g. `npx cdk synth -c profile=local`.',
    );
  }
  const stacks = inCreationOrder(assembly).map(
    (stack): AssemblyStack => ({
      stackName: stack.stackName,
      artifactId: stack.id,
      template: stack.template as CfnTemplate,
      templatePath: stack.templateFullPath,
      fileAssets: fileAssetsOf(stack),
    }),
  );
  if (stacks.length === 0) {
    throw new Error(`The cloud assembly ${directory} contains no CloudFormation stack`);
  }
  return { directory, stacks };
}

/**
 * The stacks after their dependencies, otherwise in the order the app created them (the manifest's
 * artifact order). cx-api breaks ties by name, so independent stacks would come out alphabetically;
 * the app's order matters to users: the first stack's REST API gets the runtime's port.
 */
function inCreationOrder(assembly: CdkCloudAssembly): CloudFormationStackArtifact[] {
  const manifestOrder = Object.keys(assembly.manifest.artifacts ?? {});
  const pending = [...assembly.stacksRecursively].sort(
    (a, b) => manifestOrder.indexOf(a.id) - manifestOrder.indexOf(b.id),
  );
  const placed: CloudFormationStackArtifact[] = [];
  while (pending.length > 0) {
    const ready = pending.findIndex((stack) =>
      stack.dependencies.every((dependency) => !pending.includes(dependency as CloudFormationStackArtifact)),
    );
    // A cycle cannot be synthesized; keep whatever order is left rather than loop.
    const [next] = pending.splice(ready === -1 ? 0 : ready, 1);
    if (next) placed.push(next);
  }
  return placed;
}

/** Where things live locally; supplied by the runtime once emulators and servers listen. */
export interface LocalEnvironment {
  readonly region: string;
  readonly accountId: string;
  /** Base URL of the SQS emulator (queue URLs are `${sqsEndpoint}/${accountId}/${name}`). */
  readonly sqsEndpoint: string;
  /** Base URL serving a REST API's stages, e.g. http://localhost:3000 */
  restApiBaseUrl(logicalId: string): string;
  /** URL of a Lambda function URL resource, ending with '/' like AWS. */
  functionUrl(logicalId: string): string;
  /**
   * ARN of a table's stream, known once the table exists (DynamoDB Local names streams after
   * their creation time). @default - a placeholder ARN, for resolution without an emulator
   */
  tableStreamArn?(logicalId: string): string;
}

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
const NAME_PROPERTIES: Record<string, string> = {
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

function shortHash(text: string, length = 8): string {
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

/** A resolver for one stack: resolves intrinsics and answers Ref/GetAtt with local identities. */
export interface StackResolver {
  readonly stack: AssemblyStack;
  readonly context: IntrinsicContext;
  resolve(value: unknown, path: string): unknown;
  /** Resolved Properties of a resource ({} when it has none). */
  properties(logicalId: string): Record<string, unknown>;
  /** Physical name (or id) of a resource, as Ref would return for name-addressed resources. */
  physicalName(logicalId: string): string;
  /** Whether the resource exists (its Condition, if any, is true). */
  isCreated(logicalId: string): boolean;
  /** Resolved Outputs (skipping those whose Condition is false). */
  outputs(): Record<string, string>;
}

export function createStackResolver(stack: AssemblyStack, env: LocalEnvironment): StackResolver {
  const resources = stack.template.Resources ?? {};
  const partition = 'aws';
  const arn = (service: string, resource: string, region = env.region, account = env.accountId) =>
    `arn:${partition}:${service}:${region}:${account}:${resource}`;
  const nameCache = new Map<string, string>();
  const resolving = new Set<string>();

  const resourceOf = (logicalId: string, path: string): CfnResource => {
    const resource = resources[logicalId];
    if (!resource) {
      throw new IntrinsicError(
        path,
        `unknown resource or parameter '${logicalId}' in stack ${stack.stackName}`,
      );
    }
    return resource;
  };

  const physicalName = (logicalId: string): string => {
    const cached = nameCache.get(logicalId);
    if (cached !== undefined) return cached;
    const resource = resourceOf(logicalId, `Resources.${logicalId}`);
    if (resolving.has(logicalId)) {
      throw new IntrinsicError(`Resources.${logicalId}`, 'its physical name depends on itself');
    }
    resolving.add(logicalId);
    try {
      const nameProperty = NAME_PROPERTIES[resource.Type];
      const explicit = nameProperty ? resource.Properties?.[nameProperty] : undefined;
      let name: string;
      if (explicit !== undefined) {
        name = String(
          resolveIntrinsics(explicit, context, `Resources.${logicalId}.Properties.${nameProperty}`),
        );
      } else if (resource.Type === 'AWS::SQS::Queue' && resource.Properties?.FifoQueue === true) {
        name = `${generatedPhysicalName(stack.stackName, logicalId, resource.Type).slice(0, 75)}.fifo`;
      } else if (resource.Type === 'AWS::SNS::Topic' && resource.Properties?.FifoTopic === true) {
        // A FIFO topic's name must end with .fifo, as a FIFO queue's does.
        name = `${generatedPhysicalName(stack.stackName, logicalId, resource.Type).slice(0, 251)}.fifo`;
      } else if (resource.Type.startsWith('AWS::ApiGateway::') || resource.Type === 'AWS::KMS::Key') {
        // Ids, not names: short and lower-case like the ones AWS hands out.
        name = shortHash(`${stack.stackName}/${logicalId}`, 10);
      } else {
        name = generatedPhysicalName(stack.stackName, logicalId, resource.Type);
      }
      nameCache.set(logicalId, name);
      return name;
    } finally {
      resolving.delete(logicalId);
    }
  };

  const queueUrl = (name: string) => `${env.sqsEndpoint}/${env.accountId}/${name}`;

  const ref = (logicalId: string): unknown => {
    const resource = resourceOf(logicalId, `Ref ${logicalId}`);
    const name = physicalName(logicalId);
    switch (resource.Type) {
      case 'AWS::SQS::Queue':
        return queueUrl(name);
      case 'AWS::SNS::Topic':
        return arn('sns', name);
      case 'AWS::StepFunctions::StateMachine':
        return arn('states', `stateMachine:${name}`);
      case 'AWS::Lambda::Url':
        return getAtt(logicalId, 'FunctionArn');
      case 'AWS::ApiGateway::Stage':
        return String(properties(logicalId).StageName);
      case 'AWS::IAM::ManagedPolicy':
        return arn('iam', `policy/${name}`, '');
      default:
        return name;
    }
  };

  const getAtt = (logicalId: string, attribute: string): unknown => {
    const resource = resourceOf(logicalId, `Fn::GetAtt ${logicalId}.${attribute}`);
    const name = physicalName(logicalId);
    const fail = (): never => {
      throw new IntrinsicError(
        `Fn::GetAtt ${logicalId}.${attribute}`,
        `attribute ${attribute} of ${resource.Type} is not supported by the local runtime`,
      );
    };
    switch (resource.Type) {
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
          const service = resource.Type.split('::')[1]?.toLowerCase() ?? 'unknown';
          return arn(service, name);
        }
        return `${name}.${attribute}`;
    }
  };

  const context: IntrinsicContext = {
    region: env.region,
    accountId: env.accountId,
    partition,
    urlSuffix: 'amazonaws.com',
    stackName: stack.stackName,
    ref,
    getAtt,
    parameters: stack.template.Parameters,
    conditions: stack.template.Conditions,
    mappings: stack.template.Mappings,
  };

  const restApiHosts = new Map<string, string>();
  for (const [logicalId, resource] of Object.entries(resources)) {
    if (resource.Type === 'AWS::ApiGateway::RestApi') {
      restApiHosts.set(
        `https://${physicalName(logicalId)}.execute-api.${env.region}.amazonaws.com`,
        logicalId,
      );
    }
  }
  /** The app builds its API URL from the API id and region; locally that host is a port. */
  const localizeUrls = (value: unknown): unknown => {
    if (typeof value === 'string') {
      let text = value;
      for (const [host, logicalId] of restApiHosts) {
        text = text.split(host).join(env.restApiBaseUrl(logicalId));
      }
      return text;
    }
    if (Array.isArray(value)) return value.map(localizeUrls);
    if (typeof value === 'object' && value !== null) {
      return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, localizeUrls(item)]));
    }
    return value;
  };

  const resolve = (value: unknown, path: string) => localizeUrls(resolveIntrinsics(value, context, path));

  function properties(logicalId: string): Record<string, unknown> {
    const resource = resourceOf(logicalId, `Resources.${logicalId}`);
    const resolved = resolve(
      resource.Properties ?? {},
      `${stack.stackName}.Resources.${logicalId}.Properties`,
    );
    return resolved as Record<string, unknown>;
  }

  const isCreated = (logicalId: string): boolean => {
    const condition = resourceOf(logicalId, `Resources.${logicalId}`).Condition;
    return condition === undefined || resolveIntrinsics({ Condition: condition }, context) === true;
  };

  const outputs = (): Record<string, string> => {
    const result: Record<string, string> = {};
    for (const [key, output] of Object.entries(stack.template.Outputs ?? {})) {
      if (output.Condition && resolveIntrinsics({ Condition: output.Condition }, context) !== true) continue;
      const value = resolve(output.Value, `${stack.stackName}.Outputs.${key}`);
      result[key] = typeof value === 'string' ? value : JSON.stringify(value);
    }
    return result;
  };

  return { stack, context, resolve, properties, physicalName, isCreated, outputs };
}
