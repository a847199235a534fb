/**
 * Lambda's invocation payload quotas the Lambda host (host.ts) and function URLs
 * (function-urls.ts) enforce, each with the AWS page that states it, and the errors past them.
 */

/**
 * "For synchronous invocations, the maximum payload size is 6 MB. For asynchronous invocations, the
 * maximum payload size is 1 MB" (AWS raised the asynchronous one from 256 KB in 2025). Past them
 * Invoke answers RequestTooLargeException (HTTP 413). The 6 MB request is 6,291,456 bytes in AWS's
 * own message ("Request must be smaller than 6291456 bytes for the InvokeFunction operation"); that
 * the 1 MB one is 1,048,576 bytes, and its message, are assumed alike (not found in AWS's docs).
 * https://docs.aws.amazon.com/lambda/latest/api/API_Invoke.html
 * https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html
 */
export const MAX_SYNC_REQUEST_BYTES = 6_291_456;
export const MAX_ASYNC_REQUEST_BYTES = 1_048_576;

/**
 * A synchronous invocation's response: past 6,291,556 bytes the invocation fails with the function
 * error Function.ResponseSizeTooLarge, "Response payload size exceeded maximum allowed payload size
 * (6291556 bytes)." (AWS's figure and wording as its own Lambda runtime clients' tests expect them;
 * the quotas page says "6 MB"). An asynchronous invocation's response is discarded, so not limited.
 * https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html
 */
export const MAX_SYNC_RESPONSE_BYTES = 6_291_556;
