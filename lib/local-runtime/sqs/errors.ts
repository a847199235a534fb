import { AwsApiError } from '../protocol/aws-api-error';
/**
 * SQS errors as the service answers them over the JSON protocol. SQS is "query compatible": besides
 * the JSON `__type`, AWS sends the old query-protocol code in `x-amzn-query-error` (`Code;Sender`),
 * which the SDK v3 and botocore use to pick the modelled exception and to fill `error.Code`.
 */

export class SqsError extends AwsApiError {
  constructor(
    errorType: string,
    readonly queryCode: string,
    message: string,
    statusCode = 400,
    messageKey: 'message' | 'Message' = 'message',
  ) {
    super(errorType, message, {
      statusCode,
      headers: { 'x-amzn-query-error': `${queryCode};Sender` },
      messageKey,
    });
  }
}

/**
 * Refusals of the caller rather than the request, as SQS answers them over the JSON protocol: 403,
 * the service framework's `__type` and `Message`, the query code in `x-amzn-query-error` (so the
 * SDK's error name and `Code` are `AccessDenied`, as over the query protocol). The message is AWS's
 * for an explicit deny in the queue's policy, the action lower-cased as AWS writes it.
 */
export const SqsAuthErrors = {
  accessDenied: (principalArn: string, action: string, queueArn: string) =>
    new SqsError(
      'com.amazon.coral.service#AccessDeniedException',
      'AccessDenied',
      `User: ${principalArn} is not authorized to perform: ${action.toLowerCase()} on resource: ${queueArn} with an explicit deny in a resource-based policy`,
      403,
      'Message',
    ),
  /** IAM's refusal, in its words (the runtime's authorizer). */
  accessDeniedBy: (message: string) =>
    new SqsError('com.amazon.coral.service#AccessDeniedException', 'AccessDenied', message, 403, 'Message'),
  /** An access key the account does not know, or a wrong session token. */
  invalidClientTokenId: () =>
    new SqsError(
      'com.amazon.coral.service#UnrecognizedClientException',
      'InvalidClientTokenId',
      'The security token included in the request is invalid.',
      403,
      'Message',
    ),
  /** No signature at all. */
  missingAuthenticationToken: () =>
    new SqsError(
      'com.amazon.coral.service#MissingAuthenticationTokenException',
      'MissingAuthenticationToken',
      'Request is missing Authentication Token',
      403,
      'Message',
    ),
  signatureDoesNotMatch: (message: string) =>
    new SqsError(
      'com.amazon.coral.service#InvalidSignatureException',
      'SignatureDoesNotMatch',
      message,
      403,
      'Message',
    ),
} as const;

/** Modelled errors: `__type` is the shape name, the query code comes from the model's awsQueryError trait. */
const modelled =
  (shape: string, queryCode: string, statusCode = 400) =>
  (message: string) =>
    new SqsError(`com.amazonaws.sqs#${shape}`, queryCode, message, statusCode);

export const SqsErrors = {
  queueDoesNotExist: () =>
    modelled(
      'QueueDoesNotExist',
      'AWS.SimpleQueueService.NonExistentQueue',
    )('The specified queue does not exist.'),
  queueNameExists: modelled('QueueNameExists', 'QueueAlreadyExists'),
  receiptHandleIsInvalid: (handle: string) =>
    modelled(
      'ReceiptHandleIsInvalid',
      'ReceiptHandleIsInvalid',
      404,
    )(`The input receipt handle "${handle}" is not a valid receipt handle.`),
  messageNotInflight: () =>
    modelled('MessageNotInflight', 'AWS.SimpleQueueService.MessageNotInflight')('Message is not in flight.'),
  batchEntryIdsNotDistinct: (id: string) =>
    modelled(
      'BatchEntryIdsNotDistinct',
      'AWS.SimpleQueueService.BatchEntryIdsNotDistinct',
    )(`Id ${id} repeated.`),
  emptyBatchRequest: () =>
    modelled(
      'EmptyBatchRequest',
      'AWS.SimpleQueueService.EmptyBatchRequest',
    )('There should be at least one entry in the request.'),
  invalidBatchEntryId: () =>
    modelled(
      'InvalidBatchEntryId',
      'AWS.SimpleQueueService.InvalidBatchEntryId',
    )(
      'A batch entry id can only contain alphanumeric characters, hyphens and underscores. It can be at most 80 letters long.',
    ),
  tooManyEntriesInBatchRequest: (count: number) =>
    modelled(
      'TooManyEntriesInBatchRequest',
      'AWS.SimpleQueueService.TooManyEntriesInBatchRequest',
    )(`Maximum number of entries per request are 10. You have sent ${count}.`),
  batchRequestTooLong: (size: number, limit: number) =>
    modelled(
      'BatchRequestTooLong',
      'AWS.SimpleQueueService.BatchRequestTooLong',
    )(`Batch requests cannot be longer than ${limit} bytes. You have sent ${size} bytes.`),
  invalidAttributeName: (name: string) =>
    modelled('InvalidAttributeName', 'InvalidAttributeName')(`Unknown Attribute ${name}.`),
  invalidAttributeValue: modelled('InvalidAttributeValue', 'InvalidAttributeValue'),
  /**
   * A queue encrypted with a customer-managed key the caller may not use: SendMessage and
   * ReceiveMessage's KmsAccessDenied, "The caller doesn't have the required KMS access"
   * (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_SendMessage.html, Errors;
   * the model's query code KMS.AccessDeniedException).
   */
  kmsAccessDenied: modelled('KmsAccessDenied', 'KMS.AccessDeniedException'),
  invalidMessageContents: modelled('InvalidMessageContents', 'InvalidMessageContents'),
  purgeQueueInProgress: (queueUrl: string) =>
    modelled(
      'PurgeQueueInProgress',
      'AWS.SimpleQueueService.PurgeQueueInProgress',
      403,
    )(
      `Only one PurgeQueue operation on ${queueUrl.slice(queueUrl.lastIndexOf('/') + 1)} is allowed every 60 seconds.`,
    ),
  invalidAddress: (address: string) =>
    modelled(
      'InvalidAddress',
      'InvalidAddress',
      404,
    )(`The address ${address} is not valid for this endpoint.`),
  /** Not modelled: the SDK names the exception after the query code. */
  invalidParameterValue: (message: string) =>
    new SqsError('com.amazonaws.sqs#InvalidParameterValue', 'InvalidParameterValue', message),
  missingParameter: (parameter: string) =>
    new SqsError(
      'com.amazonaws.sqs#MissingParameter',
      'MissingParameter',
      `The request must contain the parameter ${parameter}.`,
    ),
} as const;
