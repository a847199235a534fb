/**
 * How the AWS JSON protocol services (DynamoDB, Step Functions, EventBridge) answer a request whose
 * SigV4 signature they refuse: the error type (`__type`) and message, with HTTP 400
 * (https://docs.aws.amazon.com/step-functions/latest/apireference/CommonErrors.html,
 * https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/CommonErrors.html). One table for
 * every such service, keyed by the verifier's reason (../iam/identities.ts).
 */
import type { SigV4Refusal } from '../iam/identities';

export interface JsonAuthenticationError {
  readonly type: string;
  /** @default - the verifier's own message */
  readonly message?: string;
}

export const JSON_AUTHENTICATION_ERRORS: Readonly<Record<SigV4Refusal, JsonAuthenticationError>> = {
  missing: {
    type: 'MissingAuthenticationTokenException',
    message: 'Request is missing Authentication Token',
  },
  unknown: {
    type: 'UnrecognizedClientException',
    message: 'The security token included in the request is invalid.',
  },
  token: {
    type: 'UnrecognizedClientException',
    message: 'The security token included in the request is invalid.',
  },
  mismatch: { type: 'InvalidSignatureException' },
  expired: { type: 'InvalidSignatureException' },
  scope: { type: 'InvalidSignatureException', message: 'Credential should be scoped to a valid region.' },
};
