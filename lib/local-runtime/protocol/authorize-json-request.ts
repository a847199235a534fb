/**
 * What every AWS JSON protocol service of the runtime (Step Functions, EventBridge) does with a
 * request before running it: authenticate its SigV4 signature against the account's credentials
 * (answering JSON_AUTHENTICATION_ERRORS) and ask IAM for each check the service mapped it to
 * (answering AccessDeniedException, HTTP 400, with IAM's message, as their common errors pages say).
 */

import { type ReceivedRequest, verifySigV4 } from '../iam/identities';
import type { RequestCheck } from '../iam/request-check';
import type { RuntimeIam } from '../iam/runtime-iam';
import { AwsApiError } from './aws-api-error';
import { JSON_AUTHENTICATION_ERRORS } from './json-authentication-errors';

export async function authorizeJsonRequest(
  iam: RuntimeIam,
  scope: { readonly region: string; readonly service: string },
  received: ReceivedRequest,
  checks: readonly RequestCheck[],
): Promise<void> {
  const signed = await verifySigV4(received, iam.credentials, scope);
  if (!signed.ok) {
    const error = JSON_AUTHENTICATION_ERRORS[signed.reason];
    throw new AwsApiError(error.type, error.message ?? signed.message);
  }
  const { principal } = signed.identity;
  const verdict = iam.authorizer.authorizeAll(checks.map((check) => ({ principal, ...check })));
  if (!verdict.allowed) throw new AwsApiError('AccessDeniedException', verdict.message);
}
