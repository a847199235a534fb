/**
 * The one error of the AWS protocols the runtime serves (JSON 1.0/1.1, Query, and CloudWatch's
 * JSON and CBOR): an error type, a message, and the status and headers of the reply. Every
 * service's own errors (SQS's, SNS's, CloudWatch's...) are AwsApiErrors.
 */

/** An error answered as `{ __type, message }` with HTTP 400 (or the given status and headers), as AWS does. */
export class AwsApiError extends Error {
  constructor(
    readonly errorType: string,
    message: string,
    readonly reply: {
      readonly statusCode?: number;
      readonly headers?: Readonly<Record<string, string>>;
      /** The body's message field: most services write `message`, some errors `Message`. @default 'message' */
      readonly messageKey?: 'message' | 'Message';
    } = {},
  ) {
    super(message);
    this.name = errorType;
  }
}
