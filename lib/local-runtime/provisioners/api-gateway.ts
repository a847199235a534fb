/**
 * API Gateway REST APIs: one loopback server per AWS::ApiGateway::RestApi (in API port order,
 * ../apigateway/port-order.ts: the first on the runtime's port), listening before the template is resolved
 * because the app builds its API URL from it; routes from the API's Resources, Methods and Stages;
 * API keys enforced, their values generated per data directory where the template leaves them to
 * AWS; AWS_IAM methods require a SigV4 signature of a credential of the local account and
 * execute-api:Invoke on the method's ARN from its identity policies or the API's resource policy;
 * a Lambda proxy integration runs only where the function's policy lets apigateway.amazonaws.com
 * invoke it for the method (aws:SourceArn), as on AWS. Usage plans and stage method settings
 * throttle requests (api-gateway-throttles.ts reads them, ../apigateway/api-throttle.ts enforces
 * them), and a deployment that would put a key in two plans of a stage is refused, as API Gateway
 * refuses it (../apigateway/usage-plan-conflicts.ts).
 */

import { GeneratedApiKeys } from '../apigateway/api-keys';
import type { KeyPlan } from '../apigateway/api-throttle';
import { apiPortOffsets } from '../apigateway/port-order';
import {
  type IamMethodVerdict,
  type RestApiMethod,
  type RestApiServer,
  type RestApiServerOptions,
  type RestApiSpec,
  startRestApiServer,
} from '../apigateway/rest-apis';
import type { TokenBucket } from '../apigateway/token-bucket';
import { usagePlanKeyConflicts } from '../apigateway/usage-plan-conflicts';
import type { CloudAssembly } from '../assembly/cloud-assembly';
import { type LocalIdentity, type ReceivedRequest, verifySigV4 } from '../iam/identities';
import { type CompiledPolicy, compilePolicy } from '../iam/policy-document';
import type { ListenContext, Provisioner, StackContext, TargetContribution } from '../provisioning';
import type { LocalRuntimeOptions } from '../runtime-options';
import type { LocalApi } from '../target';
import {
  type LocalUsagePlan,
  type LocalUsagePlanKey,
  stageThrottles,
  USAGE_PLAN,
  USAGE_PLAN_KEY,
  usagePlanKeys,
  usagePlans,
} from './api-gateway-throttles';
import type { LambdaProvisioner } from './lambda';
import { asRecord, asString } from './values';

const REST_API = 'AWS::ApiGateway::RestApi';
const RESOURCE = 'AWS::ApiGateway::Resource';
const METHOD = 'AWS::ApiGateway::Method';
const STAGE = 'AWS::ApiGateway::Stage';
const API_KEY = 'AWS::ApiGateway::ApiKey';
const DEFAULT_PORT = 3000;
/** The identity every runtime offers its tools for AWS_IAM methods (access key id = user name). */
export const OPERATOR_IDENTITY = 'operator';

export class ApiGatewayProvisioner implements Provisioner {
  readonly name = 'API Gateway';
  readonly resourceTypes = {
    runs: [REST_API, RESOURCE, METHOD, STAGE, API_KEY, USAGE_PLAN, USAGE_PLAN_KEY],
    inert: {
      'AWS::ApiGateway::Account': "API Gateway's CloudWatch role has no local effect",
      'AWS::ApiGateway::Deployment': 'every stage serves the methods of the template as synthesized',
      'AWS::ApiGateway::Model': 'request models are not validated locally',
    },
  };
  /** Each API's server and its port offset (its place in API port order), by `<stack>/<logical id>`. */
  private readonly servers = new Map<string, { readonly server: RestApiServer; readonly offset: number }>();
  /** API key values by the stack that declares them: a stack's API accepts its own stack's keys. */
  private readonly apiKeys = new Map<string, string[]>();
  /** Each key's id (its Ref) by its value, across stacks. */
  private readonly apiKeyIds: Record<string, string> = {};
  private readonly apis: Array<{
    stackName: string;
    server: RestApiServer;
    offset: number;
    spec: RestApiSpec;
  }> = [];
  /** Every stack's usage plans and their keys (a plan may name another stack's API or key). */
  private readonly plans: LocalUsagePlan[] = [];
  private readonly planKeys: LocalUsagePlanKey[] = [];
  /** The token buckets of every API: a plan's bucket of a key counts the key on each of its stages. */
  private readonly throttleBuckets = new Map<string, TokenBucket>();
  /** Who hears of each answer of a stage (CloudWatch's AWS/ApiGateway metrics). */
  private readonly responseListeners: Array<NonNullable<RestApiServerOptions['onResponse']>> = [];

  /** `listener` hears of every answer to a request for a stage of an API (register before the start). */
  onResponse(listener: NonNullable<RestApiServerOptions['onResponse']>): void {
    this.responseListeners.push(listener);
  }
  private generatedKeys: GeneratedApiKeys | undefined;
  private operator: LocalIdentity | undefined;

  constructor(private readonly lambda: LambdaProvisioner) {}

  /** A key in two usage plans of one API stage, which API Gateway refuses (usage-plan-conflicts.ts). */
  refusals(assembly: CloudAssembly, previous?: CloudAssembly): readonly string[] {
    return usagePlanKeyConflicts(assembly, previous);
  }

  /**
   * One server per API, in API port order (options.apiPortOrder, else the assembly's order of
   * stacks): the first on the runtime's port, the next on port+1, port+2..., so each stack's API
   * keeps its URL from one start to the next; a port kept by a redeploy (options.restApiPorts) wins.
   * A later API whose port is taken listens on a free port instead, and the log says so (the target
   * description has every URL); the first API's port taken is an error.
   */
  async listen(context: ListenContext): Promise<void> {
    this.generatedKeys = new GeneratedApiKeys(context.options.dataDir);
    this.operator = context.identities.identity(OPERATOR_IDENTITY);
    const port = context.options.port ?? DEFAULT_PORT;
    const kept = context.options.restApiPorts ?? {};
    const { meter } = context;
    const restApis = context.resourcesOfType(REST_API);
    const offsets = apiPortOffsets(
      restApis.map(({ stack }) => stack.stackName),
      context.options.apiPortOrder,
    );
    for (const [index, { stack, logicalId }] of restApis.entries()) {
      const start = (wanted: number) =>
        startRestApiServer({
          port: wanted,
          invoke: (functionArn, event) => this.lambda.host.invoke(functionArn, event),
          mayInvoke: (functionArn, sourceArn) =>
            this.lambda.authorizeServiceInvoke({
              service: 'apigateway.amazonaws.com',
              functionArn,
              sourceArn,
            }).allowed,
          onProblem: (message) => context.problem(message),
          clock: context.clock,
          throttleBuckets: this.throttleBuckets,
          ...(meter && { onMethodRequest: (api: RestApiSpec) => meter.apiRequest(api.apiId) }),
          onResponse: (api, figures) => {
            for (const listener of this.responseListeners) listener(api, figures);
          },
        });
      const key = `${stack.stackName}/${logicalId}`;
      const offset = offsets[index] ?? index;
      const wanted = kept[key] ?? (port === 0 ? 0 : port + offset);
      let server: RestApiServer;
      try {
        server = await start(wanted);
      } catch (error) {
        if (offset === 0 || (error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
        server = await start(0);
        context.log(
          `REST API ${logicalId} of ${stack.stackName}: port ${wanted} is taken, listening on ${server.baseUrl} instead`,
        );
      }
      context.stopWith(server, 'producer');
      this.servers.set(key, { server, offset });
      context.publishUrl(stack, logicalId, server.baseUrl);
    }
  }

  async provision(context: StackContext): Promise<void> {
    const keys = this.apiKeys.get(context.stack.stackName) ?? [];
    this.apiKeys.set(context.stack.stackName, keys);
    for (const [logicalId] of context.ofType(API_KEY)) {
      const properties = context.resolver.properties(logicalId);
      if (properties.Enabled === false) continue;
      const value =
        asString(properties.Value) ??
        (this.generatedKeys as GeneratedApiKeys).valueOf(`${context.stack.stackName}/${logicalId}`);
      keys.push(value);
      this.apiKeyIds[value] = context.resolver.physicalName(logicalId);
    }
    this.plans.push(...usagePlans(context));
    this.planKeys.push(...usagePlanKeys(context));
  }

  async wire(context: StackContext): Promise<void> {
    const { stackName } = context.stack;
    for (const [logicalId] of context.ofType(REST_API)) {
      const listening = this.servers.get(`${stackName}/${logicalId}`);
      if (!listening) throw new Error(`No local server for ${logicalId} in ${stackName}`);
      const { server, offset } = listening;
      const keys = this.apiKeys.get(stackName) ?? [];
      const ids = Object.fromEntries(keys.map((key) => [key, this.apiKeyIds[key] as string]));
      const base = restApiSpec(context, logicalId, keys);
      const throttle = { stages: stageThrottles(context, base.apiId), keyPlans: this.keyPlansOf(base.apiId) };
      const spec = { ...base, apiKeyIds: ids, throttle };
      context.meter?.describe('apis', spec.apiId, { stackName, logicalId });
      server.serve(spec);
      this.apis.push({ stackName, server, offset, spec });
    }
  }

  /**
   * Each API key's usage plan on each stage of the API `apiId`, by key value then stage name (one
   * per key and stage: refusals() refused a deployment with two).
   */
  private keyPlansOf(apiId: string): Record<string, Record<string, KeyPlan>> {
    const keyValueById = new Map(Object.entries(this.apiKeyIds).map(([value, id]) => [id, value]));
    const keyPlans: Record<string, Record<string, KeyPlan>> = {};
    for (const { keyId, planId } of this.planKeys) {
      const value = keyValueById.get(keyId);
      const plan = this.plans.find((candidate) => candidate.planId === planId);
      if (value === undefined || plan === undefined) continue;
      for (const { apiId: planApi, stage, plan: throttle } of plan.stages) {
        if (planApi !== apiId) continue;
        keyPlans[value] = { ...keyPlans[value], [stage]: throttle };
      }
    }
    return keyPlans;
  }

  /**
   * Each stack's first API with a stage, in API port order; `apiUrl` and `apiKey` are the API's on
   * the runtime's port (offset 0), absent when no API takes it.
   */
  describe(): TargetContribution {
    const apis: Record<string, LocalApi> = {};
    const inPortOrder = [...this.apis].sort((left, right) => left.offset - right.offset);
    for (const { stackName, server, spec } of inPortOrder) {
      const stage = spec.stageNames[0];
      // A stack's first API with a stage: the one its clients are given.
      if (stage === undefined || apis[stackName]) continue;
      apis[stackName] = {
        url: `${server.baseUrl}/${stage}/`,
        apiKeys: [...spec.apiKeys],
        apiKeyIds: Object.fromEntries(Object.entries(spec.apiKeyIds ?? {}).map(([key, id]) => [id, key])),
      };
    }
    const base = this.apis.find((api) => api.offset === 0);
    const baseStage = base?.spec.stageNames[0];
    const apiKey = base && this.apiKeys.get(base.stackName)?.[0];
    return {
      ...(base && baseStage !== undefined ? { apiUrl: `${base.server.baseUrl}/${baseStage}/` } : {}),
      ...(apiKey ? { apiKey } : {}),
      ...(Object.keys(apis).length > 0 ? { apis } : {}),
      ...(this.operator ? { identities: { [OPERATOR_IDENTITY]: this.operator } } : {}),
    };
  }

  /** Every API's port, so a redeploy puts each where its clients know it (even a free port it was given). */
  redeployOptions(): Partial<LocalRuntimeOptions> {
    const restApiPorts: Record<string, number> = {};
    for (const [key, { server }] of this.servers) restApiPorts[key] = Number(new URL(server.baseUrl).port);
    return { restApiPorts };
  }
}

function restApiSpec(
  context: StackContext,
  restApiLogicalId: string,
  apiKeys: readonly string[],
): RestApiSpec {
  const { resolver } = context;
  const apiId = resolver.physicalName(restApiLogicalId);
  const rootId = String(resolver.context.getAtt(restApiLogicalId, 'RootResourceId'));
  const ofThisApi = (type: string) =>
    context
      .ofType(type)
      .map(([logicalId, resource]) => ({ logicalId, resource, properties: resolver.properties(logicalId) }))
      .filter(({ properties }) => properties.RestApiId === apiId);
  const parents = new Map<string, { parentId: string; pathPart: string }>();
  for (const { logicalId, properties } of ofThisApi(RESOURCE)) {
    parents.set(resolver.physicalName(logicalId), {
      parentId: String(properties.ParentId),
      pathPart: String(properties.PathPart),
    });
  }
  const pathOf = (resourceId: string, depth = 0): string => {
    if (resourceId === rootId) return '/';
    const node = parents.get(resourceId);
    if (!node || depth > 50) throw new Error(`API ${restApiLogicalId}: unknown resource id ${resourceId}`);
    const parentPath = pathOf(node.parentId, depth + 1);
    return `${parentPath === '/' ? '' : parentPath}/${node.pathPart}`;
  };
  const methods: RestApiMethod[] = [];
  for (const { logicalId, properties } of ofThisApi(METHOD)) {
    const resourceId = String(properties.ResourceId);
    const integration = asRecord(properties.Integration);
    const authorization = asString(properties.AuthorizationType) ?? 'NONE';
    if (authorization === 'CUSTOM' || authorization === 'COGNITO_USER_POOLS') {
      context.named(
        logicalId,
        METHOD,
        `authorizer ${authorization} is not emulated: the method is served without it`,
      );
    }
    const base = {
      logicalId,
      resourcePath: pathOf(resourceId),
      resourceId,
      httpMethod: String(properties.HttpMethod).toUpperCase(),
      apiKeyRequired: properties.ApiKeyRequired === true,
      authorizationType: authorization,
    };
    if (integration.Type === 'AWS_PROXY') {
      const functionArn = /functions\/(arn:[^/]+)\/invocations/.exec(String(integration.Uri))?.[1];
      if (!functionArn) {
        context.named(
          logicalId,
          METHOD,
          `AWS_PROXY integration ${String(integration.Uri)} is not a Lambda function`,
        );
        continue;
      }
      methods.push({ ...base, integration: { type: 'lambda-proxy', functionArn } });
    } else if (integration.Type === 'MOCK') {
      const first = asRecord(
        (Array.isArray(integration.IntegrationResponses) ? integration.IntegrationResponses : [])[0],
      );
      const headers: Record<string, string> = {};
      for (const [key, value] of Object.entries(asRecord(first.ResponseParameters))) {
        const header = /^method\.response\.header\.(.+)$/.exec(key)?.[1];
        if (header) headers[header] = String(value).replace(/^'(.*)'$/, '$1');
      }
      methods.push({
        ...base,
        integration: { type: 'mock', statusCode: Number(first.StatusCode ?? 200), headers },
      });
    } else {
      context.named(logicalId, METHOD, `integration type ${String(integration.Type)} is not emulated`);
    }
  }
  const stageNames = [...ofThisApi(STAGE), ...ofThisApi('AWS::ApiGateway::Deployment')]
    .map(({ properties }) => properties.StageName)
    .filter((name): name is string => typeof name === 'string');
  const apiName = asString(resolver.properties(restApiLogicalId).Name);
  return {
    logicalId: restApiLogicalId,
    apiId,
    ...(apiName !== undefined && { apiName }),
    stageNames,
    methods,
    apiKeys,
    authorizeIam: iamAuthorizer(context, restApiLogicalId),
    region: context.region,
    accountId: context.accountId,
  };
}

/**
 * AWS_IAM methods: the request's SigV4 signature (signing name execute-api) against the local
 * account's credentials, then execute-api:Invoke on the method's ARN from the caller's policies or
 * the API's resource policy (RestApi Policy). API Gateway's answers: 403 `{"message": ...}` for a
 * missing or bad signature, 403 `{"Message": "User: ... is not authorized to perform:
 * execute-api:Invoke on resource: ..."}` for a denial
 * (https://repost.aws/knowledge-center/api-gateway-iam-authentication-403).
 */
function iamAuthorizer(
  context: StackContext,
  restApiLogicalId: string,
): (request: ReceivedRequest, methodArn: string) => Promise<IamMethodVerdict> {
  const policy = context.resolver.properties(restApiLogicalId).Policy;
  const resourcePolicy: CompiledPolicy | undefined =
    policy === undefined
      ? undefined
      : compilePolicy(`${context.stack.stackName}/${restApiLogicalId} resource policy`, 'resource', policy);
  return async (request, methodArn) => {
    const signed = await verifySigV4(request, context.iam.credentials, { region: context.region });
    if (!signed.ok) return { ok: false, message: signed.message, messageKey: 'message' };
    const { principal, accessKeyId } = signed.identity;
    const verdict = context.iam.authorizer.authorize({
      principal,
      action: 'execute-api:Invoke',
      resource: methodArn,
      ...(resourcePolicy ? { resourcePolicy } : {}),
    });
    if (!verdict.allowed) return { ok: false, message: verdict.message, messageKey: 'Message' };
    return { ok: true, accessKeyId, userArn: principal.arn };
  };
}
