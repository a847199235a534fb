/**
 * SNS's quotas the runtime's SNS enforces, in one place, each with the AWS page that states it. What
 * is refused past each one, and with which error, is in the module that checks it (topics.ts for a
 * publish, api.ts for a batch, message-attributes.ts for attributes).
 */

/**
 * A publish's size, its message body and message attributes (each attribute's name, type and
 * value): at most the topic's MaximumMessageSize, "The default is 262144 (256 KiB)"; past it SNS
 * "returns an InvalidParameter error". Topics here have the default (the attribute is not read from
 * templates).
 * https://docs.aws.amazon.com/sns/latest/dg/large-message-payloads.html
 * https://docs.aws.amazon.com/sns/latest/api/API_Publish.html
 */
export const MAX_MESSAGE_BYTES = 262_144;

/**
 * PublishBatch: "Publishes up to 10 messages"; "the maximum total payload size (the sum of the
 * individual lengths of all of the batched messages) [is] 256 KiB (262,144 bytes)" by default; each
 * entry's Id "can have up to 80 characters ... alphanumeric characters, hyphens(-), and underscores (_)".
 * https://docs.aws.amazon.com/sns/latest/api/API_PublishBatch.html
 * https://docs.aws.amazon.com/sns/latest/dg/sns-batch-api-actions.html
 */
export const MAX_BATCH_ENTRIES = 10;
export const MAX_BATCH_PAYLOAD_BYTES = MAX_MESSAGE_BYTES;
export const BATCH_ENTRY_ID = /^[A-Za-z0-9_-]{1,80}$/;

/**
 * MessageGroupId and MessageDeduplicationId "can contain up to 128 alphanumeric characters (a-z,
 * A-Z, 0-9) and punctuation (!"#$%&'()*+,-./:;<=>?@[\]^_`{|}~)".
 * https://docs.aws.amazon.com/sns/latest/api/API_Publish.html
 */
export const FIFO_ID = /^[A-Za-z0-9!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]{1,128}$/;
