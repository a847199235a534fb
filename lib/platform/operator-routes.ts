import { Aws, Duration, type Stack, Validations } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigateway';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { BROWSER_ORIGIN_ENV, CORRELATION_ID_HEADER } from '../../lambdas/shared/http';

/** One IAM-authorised method, as its method ARN names it: `GET` and `/operator/deliveries/*`. */
export interface OperatorMethod {
  readonly verb: string;
  /** The resource path with each `{parameter}` written `*`. */
  readonly path: string;
}

/**
 * What an operator console in another stack needs of a wing's AWS_IAM operator routes: where they
 * are (the stage URL; the REST API id for the CSP's origin and the method ARNs) and which methods an
 * operator may invoke (`execute-api:Invoke` on those and nothing else). Plain values, so they cross
 * stacks as named exports (exportOperatorRoutes) and the console never imports the wing.
 */
export interface OperatorRoutes {
  /** The REST API's stage URL, without a trailing slash. */
  readonly url: string;
  readonly restApiId: string;
  readonly stageName: string;
  readonly methods: readonly OperatorMethod[];
}

/** The methods as OperatorRoutes names them. */
export function operatorMethodsOf(methods: readonly apigw.Method[]): OperatorMethod[] {
  return methods.map((method) => ({
    verb: method.httpMethod,
    path: method.resource.path.replace(/\{[^}]+\}/g, '*'),
  }));
}

/** `https://<api id>.execute-api.<region>.<suffix>`: the origin a page calls the API at. */
export function operatorApiOrigin(routes: Pick<OperatorRoutes, 'restApiId'>): string {
  return `https://${routes.restApiId}.execute-api.${Aws.REGION}.${Aws.URL_SUFFIX}`;
}

/** The method ARNs of the routes (what `execute-api:Invoke` is granted on). */
export function operatorMethodArns(routes: OperatorRoutes): string[] {
  return routes.methods.map(
    (method) =>
      `arn:${Aws.PARTITION}:execute-api:${Aws.REGION}:${Aws.ACCOUNT_ID}:${routes.restApiId}/${routes.stageName}/${method.verb}${method.path}`,
  );
}

/**
 * The routes as another stack reads them: the URL, API id and stage exported from `stack` under
 * names of their own (`<prefix>-ApiUrl`, ...), so the reader's policy names them as plain imports
 * (and cdk-nag names its one wildcard, the `{id}` route's `*`, by those names). The reader's stack
 * must depend on `stack` (the caller adds the dependency).
 */
export function exportOperatorRoutes(stack: Stack, routes: OperatorRoutes, prefix: string): OperatorRoutes {
  return {
    url: stack.exportValue(routes.url, { name: `${prefix}-ApiUrl` }),
    restApiId: stack.exportValue(routes.restApiId, { name: `${prefix}-RestApiId` }),
    stageName: stack.exportValue(routes.stageName, { name: `${prefix}-StageName` }),
    methods: routes.methods,
  };
}

/** What allowBrowserOrigin opens to the one origin. */
export interface BrowserOriginTarget {
  readonly api: apigw.RestApi;
  /** The routes' resources: each gets a CORS preflight. */
  readonly resources: readonly apigw.Resource[];
  /** The routes' functions: their answers carry the origin (BROWSER_ORIGIN_ENV). */
  readonly functions: readonly lambda.Function[];
}

/** Why a preflight is unauthenticated, for the cdk-nag findings on it. */
const PREFLIGHT_REASON =
  'A CORS preflight (OPTIONS) carries no credentials by the Fetch standard; it is a mock integration that reaches no function and reads no data.';

/**
 * Lets one browser origin (an operator console's) call AWS_IAM operator routes: an unauthenticated
 * OPTIONS preflight on each route (a mock integration: it reaches no function and reads nothing)
 * allowing that origin alone, the SigV4 headers and GET/POST; the handlers' answers carry the same
 * origin (BROWSER_ORIGIN_ENV), so the page can read them, 409 and 429 included; and API Gateway's
 * own refusals (a bad or expired signature: 403) carry it too, so they reach the page in words.
 * The gateway responses are the API's: call this once per REST API.
 */
export function allowBrowserOrigin(target: BrowserOriginTarget, origin: string): void {
  for (const resource of target.resources) {
    const preflight = resource.addCorsPreflight({
      allowOrigins: [origin],
      allowMethods: ['GET', 'POST', 'OPTIONS'],
      allowHeaders: [
        'Authorization',
        'Content-Type',
        'X-Amz-Date',
        'X-Amz-Security-Token',
        'X-Amz-Content-Sha256',
        CORRELATION_ID_HEADER,
      ],
      maxAge: Duration.minutes(10),
    });
    Validations.of(preflight).acknowledge(
      { id: 'AwsSolutions-APIG4', reason: PREFLIGHT_REASON },
      { id: 'AwsSolutions-COG4', reason: PREFLIGHT_REASON },
    );
  }
  for (const fn of target.functions) fn.addEnvironment(BROWSER_ORIGIN_ENV, origin);
  const allowOrigin = { 'Access-Control-Allow-Origin': `'${origin}'`, Vary: "'Origin'" };
  target.api.addGatewayResponse('BrowserOrigin4xx', {
    type: apigw.ResponseType.DEFAULT_4XX,
    responseHeaders: allowOrigin,
  });
  target.api.addGatewayResponse('BrowserOrigin5xx', {
    type: apigw.ResponseType.DEFAULT_5XX,
    responseHeaders: allowOrigin,
  });
}

/** Operators are IAM principals: the acknowledgment every AWS_IAM operator method carries for cdk-nag. */
export function acknowledgeIamAuthorization(methods: readonly apigw.Method[]): void {
  for (const method of methods) {
    Validations.of(method).acknowledge({
      id: 'AwsSolutions-COG4',
      reason:
        'Operators are IAM principals (AWS_IAM authorization, SigV4); a console signs through a Cognito identity pool, not a user pool authorizer.',
    });
  }
}
