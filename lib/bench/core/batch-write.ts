/**
 * Loads a table for a figure: BatchWriteItem in batches of 25 (DynamoDB's limit), several batches
 * in flight at once, re-sending what a response leaves unprocessed.
 */
import { BatchWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { sleep } from '../../../lambdas/shared/clock';
import { forEachLimited } from '../../../lambdas/shared/concurrency';

/** Items per BatchWriteItem request: DynamoDB accepts at most 25. */
export const BATCH_WRITE_LIMIT = 25;
/** Times a batch's unprocessed items are sent again before the load gives up. */
const UNPROCESSED_RETRIES = 8;
const RETRY_DELAY_MILLIS = 50;

/** Consecutive slices of at most `size` items, in order. */
export function chunked<T>(items: readonly T[], size: number): T[][] {
  if (!Number.isInteger(size) || size < 1)
    throw new Error(`chunked: size must be a positive integer, got ${size}`);
  const chunks: T[][] = [];
  for (let start = 0; start < items.length; start += size) chunks.push(items.slice(start, start + size));
  return chunks;
}

/** Puts every item into the table (BatchWriteItem, `concurrency` requests in flight). */
export async function batchWriteAll(
  client: DynamoDBDocumentClient,
  tableName: string,
  items: readonly Record<string, unknown>[],
  concurrency: number,
): Promise<void> {
  await forEachLimited(chunked(items, BATCH_WRITE_LIMIT), concurrency, async (batch) => {
    let requests = batch.map((item) => ({ PutRequest: { Item: item } }));
    for (let attempt = 0; requests.length > 0; attempt += 1) {
      if (attempt > UNPROCESSED_RETRIES) {
        throw new Error(`batchWriteAll: ${requests.length} items of ${tableName} still unprocessed`);
      }
      if (attempt > 0) await sleep(RETRY_DELAY_MILLIS * attempt);
      const { UnprocessedItems } = await client.send(
        new BatchWriteCommand({ RequestItems: { [tableName]: requests } }),
      );
      requests = (UnprocessedItems?.[tableName] ?? []) as typeof requests;
    }
  });
}
