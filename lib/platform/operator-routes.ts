import { Duration, Validations } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigateway';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { BROWSER_ORIGIN_ENV, CORRELATION_ID_HEADER } from '../../lambdas/shared/http';

/**
 * What an operator console needs of a wing's AWS_IAM operator routes: where they are (the stage
 * URL, the REST API for the origin of the CSP) and their methods (to let the console's role invoke
 * them, `execute-api:Invoke` on their method ARNs and nothing else). A wing's construct satisfies it
 * structurally, so the console never imports the wing.
 */
export interface OperatorRoutes {
  /** The REST API's stage URL, without a trailing slash. */
  readonly url: string;
  readonly api: apigw.IRestApi;
  /** The IAM-authorised methods an operator may invoke. */
  readonly methods: readonly apigw.Method[];
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
