/**
 * SQS's quotas the service enforces, in one place, each with the AWS page that states it. What is
 * refused past each one, and with which error, is in the module that checks it (messages.ts,
 * queue-attributes.ts, service.ts).
 */

/**
 * A queue's MaximumMessageSize: "An integer from 1,024 bytes (1 KiB) up to 1,048,576 bytes (1 MiB).
 * Default: 1,048,576 bytes (1 MiB)" (AWS raised both from 256 KiB in 2025).
 * https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_CreateQueue.html
 */
export const MIN_MAXIMUM_MESSAGE_SIZE = 1024;
export const MAX_MESSAGE_BYTES = 1_048_576;
export const DEFAULT_MAXIMUM_MESSAGE_SIZE = MAX_MESSAGE_BYTES;

/**
 * "A single message batch request can include a maximum of 10 messages"; a batched message id "can
 * have up to 80 characters ... alphanumeric characters, hyphens (-), and underscores (_)".
 * https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/quotas-messages.html
 */
export const MAX_BATCH_ENTRIES = 10;
export const BATCH_ENTRY_ID = /^[A-Za-z0-9_-]{1,80}$/;

/**
 * SendMessageBatch: "The maximum allowed individual message size and the maximum total payload size
 * (the sum of the individual lengths of all of the batched messages) are both 1 MiB (1,048,576
 * bytes)"; a message's length counts its body and its message attributes.
 * https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_SendMessageBatch.html
 */
export const MAX_BATCH_PAYLOAD_BYTES = 1_048_576;

/**
 * MessageGroupId and MessageDeduplicationId: up to 128 characters, "alphanumeric characters and
 * punctuation (!"#$%&'()*+,-./:;<=>?@[\]^_`{|}~)".
 * https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/quotas-messages.html
 */
export const FIFO_ID = /^[A-Za-z0-9!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]{1,128}$/;

/** "A message can contain up to 10 metadata attributes" (quotas-messages.html above). */
export const MAX_MESSAGE_ATTRIBUTES = 10;
