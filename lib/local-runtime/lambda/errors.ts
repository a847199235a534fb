/**
 * Lambda's Invoke errors the host raises to its callers (an event source, an integration, a
 * delivery), named as the SDK names them, so a caller's log says what AWS would have answered.
 */

/** Invoke's RequestTooLargeException (HTTP 413): the payload is over the quota (limits.ts). */
export class RequestTooLargeError extends Error {
  override readonly name = 'RequestTooLargeException';
  readonly statusCode = 413;

  constructor(limitBytes: number) {
    super(`Request must be smaller than ${limitBytes} bytes for the InvokeFunction operation`);
  }
}

/**
 * AccessDeniedException: neither the caller's policies nor the function's resource policy allow
 * the invocation (https://docs.aws.amazon.com/lambda/latest/api/CommonErrors.html); the message is
 * IAM's, as the authorizer words it. Lambda answers it with HTTP 403 (the common errors page says
 * 400 for every service; not confirmed for Lambda in AWS's text).
 */
export class LambdaAccessDeniedError extends Error {
  override readonly name = 'AccessDeniedException';
  readonly statusCode = 403;
}
