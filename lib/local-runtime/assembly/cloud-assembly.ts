/**
 * Reads a synthesized cloud assembly (cdk.out) and gives each stack LOCAL identities: physical
 * names derived from logical ids (CloudFormation generates names; the app relies on generated names
 * only), ARNs in the local account, and URLs on the local emulators. Intrinsics in the template are
 * resolved against those identities (see intrinsics.ts); the names and attributes per resource type
 * are a table of their own (resource-identities.ts).
 */
import { dirname, join } from 'node:path';
import {
  AssetManifestArtifact,
  CloudAssembly as CdkCloudAssembly,
  type CloudFormationStackArtifact,
} from 'aws-cdk-lib/cx-api';
import { type IntrinsicContext, IntrinsicError, resolveIntrinsics } from './intrinsics';
import { attributeOf, implicitPhysicalName, NAME_PROPERTIES, referenceOf } from './resource-identities';
import type { CfnResource, CfnTemplate, LocalEnvironment } from './template-types';

export { generatedPhysicalName } from './resource-identities';
export type { CfnResource, CfnTemplate, LocalEnvironment } from './template-types';

export interface AssemblyStack {
  readonly stackName: string;
  /** Artifact id in manifest.json (usually the construct id of the stack). */
  readonly artifactId: string;
  readonly template: CfnTemplate;
  readonly templatePath: string;
  /** File assets of the stack by S3 object key (e.g. `<hash>.zip`): absolute local directory or file. */
  readonly fileAssets: ReadonlyMap<string, string>;
  /**
   * The role CloudFormation deploys the stack as (the synthesizer's, with `${AWS::AccountId}`-style
   * placeholders), if the synthesizer names one; absent, the deployer's own credentials are used.
   */
  readonly executionRoleArn?: string;
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
      ...(stack.cloudFormationExecutionRoleArn
        ? { executionRoleArn: stack.cloudFormationExecutionRoleArn }
        : {}),
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

/**
 * `value` with every string's API hosts (host -> the API's logical id) replaced by their local base URLs (the app builds its API
 * URL from the API id and region; locally that host is a port), through arrays and objects.
 */
function replaceHosts(
  value: unknown,
  apiOfHost: ReadonlyMap<string, string>,
  localBase: (logicalId: string) => string,
): unknown {
  if (typeof value === 'string') {
    let text = value;
    for (const [host, logicalId] of apiOfHost) text = text.split(host).join(localBase(logicalId));
    return text;
  }
  if (Array.isArray(value)) return value.map((item) => replaceHosts(item, apiOfHost, localBase));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, replaceHosts(item, apiOfHost, localBase)]),
    );
  }
  return value;
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
      const name =
        explicit !== undefined
          ? String(resolveIntrinsics(explicit, context, `Resources.${logicalId}.Properties.${nameProperty}`))
          : implicitPhysicalName(stack.stackName, logicalId, resource);
      nameCache.set(logicalId, name);
      return name;
    } finally {
      resolving.delete(logicalId);
    }
  };

  const queueUrl = (name: string) => `${env.sqsEndpoint}/${env.accountId}/${name}`;

  const subject = (logicalId: string, type: string) => ({
    logicalId,
    type,
    name: physicalName(logicalId),
    arn,
    queueUrl,
    env,
    properties,
  });
  const ref = (logicalId: string): unknown =>
    referenceOf(subject(logicalId, resourceOf(logicalId, `Ref ${logicalId}`).Type));
  const getAtt = (logicalId: string, attribute: string): unknown =>
    attributeOf(
      subject(logicalId, resourceOf(logicalId, `Fn::GetAtt ${logicalId}.${attribute}`).Type),
      attribute,
    );

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
  const localizeUrls = (value: unknown) =>
    replaceHosts(value, restApiHosts, (logicalId) => env.restApiBaseUrl(logicalId));
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
