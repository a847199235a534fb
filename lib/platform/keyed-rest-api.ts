import { Aws, Fn, Names, Validations } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigateway';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import type { Construct } from 'constructs';
import { DataSettings } from './data-settings';
import { throttleShareOf, validateShares } from './throttle-shares';

/** Stage name of every REST API of this application. */
export const API_STAGE_NAME = 'v1';

export interface KeyedRestApiProps {
  /** What the API is for, shown in the console. */
  readonly description: string;
  /** Who holds the API key (its description and the usage plan's). */
  readonly clients: string;
  /**
   * One API key per named client instead of one shared key, each in the usage plan (so each is
   * throttled on its own and identifiable: API Gateway passes the key's id to the integration as
   * requestContext.identity.apiKeyId). These keys carry no stage keys: a stage key would make the key
   * depend on the deployment, so a function behind the API could not reference the key's id.
   * @default - one key, `ApiKey`, shared by every client
   */
  readonly keyNames?: readonly string[];
  /**
   * With keyNames: the first named client keeps the API's former shared key (construct id `ApiKey`,
   * so its logical id and the key value its holders have survive the upgrade from one shared key;
   * only its stage keys and description change, neither of which replaces it).
   * @default false - every named key is new (`ApiKey-<name>`)
   */
  readonly firstNameKeepsSharedKey?: boolean;
  /** Stage throttling, also the usage plan's limits (rateLimit > 0, integer burstLimit >= rateLimit). */
  readonly throttle: { readonly rateLimit: number; readonly burstLimit: number };
  /**
   * Each named key's share of the stage throttle, in percent, by key name (every name of keyNames,
   * each > 0, together at most 100): each key is then throttled on its own to that share of the
   * stage's rate and burst (throttleShareOf; keys with the same share in one usage plan), so no
   * key holder can take the whole stage limit from the others. Only with keyNames.
   * @default - one usage plan with the whole stage limits, per key
   */
  readonly keyShares?: Readonly<Record<string, number>>;
  /**
   * Why API Gateway models do not validate request bodies (the handlers validate against the
   * shared contracts), for the AwsSolutions-APIG2 acknowledgment.
   */
  readonly bodyValidation: string;
  /**
   * Requests one client IP may send in 5 minutes (a WAF rate-based rule in a web ACL associated
   * with the stage; WAF's own bounds, 10 to 2,000,000,000). Platform setting `apiRateLimitPerIp`.
   * @default - no web ACL
   */
  readonly rateLimitPerIp?: number;
}

/** WAF's bounds of a rate-based rule's limit. */
const MIN_RATE_LIMIT = 10;
const MAX_RATE_LIMIT = 2_000_000_000;

export interface KeyedRestApi {
  readonly api: apigw.RestApi;
  /** The stage's web ACL, when a rateLimitPerIp was given. */
  readonly webAcl?: wafv2.CfnWebACL;
  /** The shared key, or the first named key. */
  readonly apiKey: apigw.IApiKey;
  /** The named keys by name (empty without keyNames). */
  readonly namedKeys: ReadonlyMap<string, apigw.IApiKey>;
  /** Validates path parameters at the gateway. */
  readonly parameterValidator: apigw.RequestValidator;
  /** Invoke URL of the stage, without a trailing slash. */
  readonly url: string;
}

/**
 * A regional REST API behind an API key and a usage plan, with stage throttling, JSON access logs,
 * X-Ray tracing and error-level execution logs without bodies. Its children (`AccessLogs`, `Api`,
 * `ApiKey`, `UsagePlan`) are created in `scope`, so the caller's construct ids stay its own.
 */
export function createKeyedRestApi(scope: Construct, props: KeyedRestApiProps): KeyedRestApi {
  const { rateLimit, burstLimit } = props.throttle;
  if (!(rateLimit > 0) || !Number.isInteger(burstLimit) || burstLimit < 1 || burstLimit < rateLimit) {
    throw new Error(
      `${scope.constructor.name} ${scope.node.path}: throttle needs rateLimit > 0 and an integer burstLimit >= rateLimit, got rate ${rateLimit}, burst ${burstLimit}`,
    );
  }
  const { rateLimitPerIp } = props;
  if (
    rateLimitPerIp !== undefined &&
    !(
      Number.isInteger(rateLimitPerIp) &&
      rateLimitPerIp >= MIN_RATE_LIMIT &&
      rateLimitPerIp <= MAX_RATE_LIMIT
    )
  ) {
    throw new Error(
      `${scope.constructor.name} ${scope.node.path}: rateLimitPerIp must be an integer from ${MIN_RATE_LIMIT} to ${MAX_RATE_LIMIT} (WAF's bounds), got ${rateLimitPerIp}`,
    );
  }
  const accessLogs = new logs.LogGroup(scope, 'AccessLogs', {
    retention: DataSettings.of(scope).logRetention,
    removalPolicy: DataSettings.of(scope).removalPolicy,
  });
  const api = new apigw.RestApi(scope, 'Api', {
    description: props.description,
    endpointTypes: [apigw.EndpointType.REGIONAL],
    // API Gateway writes access and execution logs only once the account has a CloudWatch role.
    // The role is account-wide, so it is retained (CDK default) even when the stack's data is not.
    cloudWatchRole: true,
    defaultMethodOptions: { apiKeyRequired: true },
    deployOptions: {
      stageName: API_STAGE_NAME,
      throttlingRateLimit: rateLimit,
      throttlingBurstLimit: burstLimit,
      accessLogDestination: new apigw.LogGroupLogDestination(accessLogs),
      accessLogFormat: apigw.AccessLogFormat.jsonWithStandardFields(),
      loggingLevel: apigw.MethodLoggingLevel.ERROR,
      // Request bodies carry customer data: never in execution logs.
      dataTraceEnabled: false,
      metricsEnabled: true,
      tracingEnabled: true,
    },
  });
  // The stack exports the URL once (no trailing slash); drop the construct's own output.
  api.node.tryRemoveChild('Endpoint');
  const parameterValidator = api.addRequestValidator('ParameterValidator', {
    validateRequestParameters: true,
  });
  const { apiKey, namedKeys } = addKeysAndUsagePlans(scope, api, props);

  const webAcl = rateLimitPerIp === undefined ? undefined : addRateLimitWebAcl(scope, api, rateLimitPerIp);
  if (!webAcl) {
    Validations.of(api).acknowledge({
      id: 'AwsSolutions-APIG3',
      reason:
        'No web ACL in this profile (apiRateLimitPerIp unset: WAF is not emulated locally); the stage throttling, the usage plan and the API keys limit requests.',
    });
  }
  Validations.of(api).acknowledge(
    { id: 'AwsSolutions-APIG2', reason: props.bodyValidation },
    {
      id: 'AwsSolutions-APIG4',
      reason:
        'Clients are machine clients identified by API keys with a usage plan (the reference design); no end-user identity exists.',
    },
    {
      id: 'AwsSolutions-COG4',
      reason: 'No end users: clients are machine clients authenticated by API key.',
    },
  );
  const cloudWatchRole = api.node.tryFindChild('CloudWatchRole');
  if (cloudWatchRole) {
    Validations.of(cloudWatchRole).acknowledge({
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
      reason:
        'The account-level API Gateway logging role; this AWS managed policy is the documented one for it.',
    });
  }
  const url = Fn.join('', [
    'https://',
    api.restApiId,
    '.execute-api.',
    Aws.REGION,
    '.',
    Aws.URL_SUFFIX,
    '/',
    api.deploymentStage.stageName,
  ]);
  return { api, ...(webAcl && { webAcl }), apiKey, namedKeys, parameterValidator, url };
}

/**
 * The API's keys (one shared, or one per name) and their usage plans. A usage plan's throttle
 * applies to each of its keys on its own, so keys with the same share are in one plan: without
 * keyShares one plan, `UsagePlan`, with the stage limits; with keyShares, one plan per distinct
 * share, the first key's being `UsagePlan` and any other `UsagePlan-<first key with that share>`.
 *
 * Why shares may not move a key: API Gateway allows a key one usage plan per API stage
 * (CreateUsagePlanKey answers ConflictException) and CloudFormation creates a key's new
 * association before it deletes the old, so a deployment that moves a key to another plan (a
 * share changed apart from the others, or a plan renamed) fails on AWS and rolls back. The release
 * check refuses such an upgrade (lib/release/usage-plan-key-moves.ts, `usage-plan-key-moved`) and
 * the local runtime refuses such a redeploy, both naming the key and the plans. One plan per key
 * from the start would let every share change in place, but the released templates put every named
 * key in `UsagePlan`: giving each key its own plan now would itself move all but one of them. So
 * keys of equal shares (the default) stay together in `UsagePlan`, whose throttle is updated in
 * place when their common share changes; a key that needs a share of its own takes a new key (a
 * renamed client) in its new plan, or two deployments (docs/configuration.md).
 */
function addKeysAndUsagePlans(
  scope: Construct,
  api: apigw.RestApi,
  props: KeyedRestApiProps,
): { readonly apiKey: apigw.IApiKey; readonly namedKeys: ReadonlyMap<string, apigw.IApiKey> } {
  const owner = `${scope.constructor.name} ${scope.node.path}`;
  const { keyNames, keyShares } = props;
  if (keyShares !== undefined && keyNames === undefined) {
    throw new Error(`${owner}: keyShares needs keyNames (a share is a named key's)`);
  }
  const plans = new Map<number, apigw.UsagePlan>();
  const planOf = (share: number | undefined, keyName: string | undefined): apigw.UsagePlan => {
    const percent = share ?? 100;
    let plan = plans.get(percent);
    if (plan === undefined) {
      plan = api.addUsagePlan(plans.size === 0 ? 'UsagePlan' : `UsagePlan-${keyName}`, {
        description:
          share === undefined
            ? `${props.clients}: the stage limits, per key`
            : `${props.clients}: ${share} % of the stage limits, per key`,
        throttle: share === undefined ? props.throttle : throttleShareOf(props.throttle, share),
        apiStages: [{ api, stage: api.deploymentStage }],
      });
      plans.set(percent, plan);
    }
    return plan;
  };
  if (keyNames === undefined) {
    const apiKey = api.addApiKey('ApiKey', { description: props.clients });
    planOf(undefined, undefined).addApiKey(apiKey);
    return { apiKey, namedKeys: new Map() };
  }
  if (keyNames.length === 0 || new Set(keyNames).size !== keyNames.length) {
    throw new Error(
      `${owner}: keyNames must name one or more distinct clients, got ${JSON.stringify(keyNames)}`,
    );
  }
  if (keyShares !== undefined) validateShares(owner, keyNames, keyShares);
  const namedKeys = new Map<string, apigw.IApiKey>();
  for (const [index, name] of keyNames.entries()) {
    const keeps = index === 0 && props.firstNameKeepsSharedKey === true;
    const key = new apigw.ApiKey(api, keeps ? 'ApiKey' : `ApiKey-${name}`, {
      description: `${props.clients}: ${name}`,
    });
    planOf(keyShares?.[name], name).addApiKey(key);
    namedKeys.set(name, key);
  }
  return { apiKey: namedKeys.get(keyNames[0] as string) as apigw.IApiKey, namedKeys };
}

/**
 * A regional web ACL with one rate-based rule (per client IP, 5-minute window; over the limit the
 * address gets 403 until its rate falls), associated with the API's stage. Everything else is
 * allowed: API keys, the usage plan and the handlers' validation do the rest. Stage throttling
 * limits all callers together; this limits one address, before API Gateway counts it.
 */
function addRateLimitWebAcl(scope: Construct, api: apigw.RestApi, limit: number): wafv2.CfnWebACL {
  const metricName = (suffix: string) => `${Names.uniqueId(scope).slice(-100)}-${suffix}`;
  const webAcl = new wafv2.CfnWebACL(scope, 'WebAcl', {
    scope: 'REGIONAL',
    description: `Rate limit per client IP of the ${API_STAGE_NAME} stage`,
    defaultAction: { allow: {} },
    visibilityConfig: {
      cloudWatchMetricsEnabled: true,
      metricName: metricName('web-acl'),
      sampledRequestsEnabled: true,
    },
    rules: [
      {
        name: 'RateLimitPerIp',
        priority: 0,
        action: { block: {} },
        statement: {
          rateBasedStatement: { limit, aggregateKeyType: 'IP', evaluationWindowSec: 300 },
        },
        visibilityConfig: {
          cloudWatchMetricsEnabled: true,
          metricName: metricName('rate-limit-per-ip'),
          sampledRequestsEnabled: true,
        },
      },
    ],
  });
  // The stage ARN refers to the stage resource, so the association is created after the stage.
  new wafv2.CfnWebACLAssociation(scope, 'WebAclAssociation', {
    resourceArn: api.deploymentStage.stageArn,
    webAclArn: webAcl.attrArn,
  });
  return webAcl;
}
