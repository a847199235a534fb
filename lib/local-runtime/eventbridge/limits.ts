/**
 * EventBridge's quotas the runtime's PutEvents enforces (event-buses.ts), each with the AWS page that
 * states it.
 */

/**
 * PutEvents' Entries: "Minimum number of 1 item. Maximum number of 10 items."
 * https://docs.aws.amazon.com/eventbridge/latest/APIReference/API_PutEvents.html
 */
export const MAX_PUT_EVENTS_ENTRIES = 10;

/**
 * "You can batch multiple event entries into one request for efficiency. However, the total entry
 * size must be less than 1MB" (the API reference as of the current SDK model; it was 256 KB before
 * AWS raised it), each entry's size computed as eventEntryBytes does
 * (https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-putevent-size.html). Whether "1MB" is
 * 1,048,576 or 1,000,000 bytes is not stated; a request of exactly 1 MiB is taken here.
 * https://docs.aws.amazon.com/eventbridge/latest/APIReference/API_PutEvents.html
 */
export const MAX_PUT_EVENTS_BYTES = 1_048_576;
