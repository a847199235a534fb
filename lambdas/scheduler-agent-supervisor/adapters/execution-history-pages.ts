/**
 * An execution's history as the operator routes read it: GetExecutionHistory page by page, at most
 * `bounds.maxPages` pages of `bounds.pageSize` events, without execution data (names, times and
 * errors only: no state input or output, which is order data). One reader for inspect's step runs
 * (execution-history.ts) and the workflow graph's path (execution-workflow.ts), so both read the
 * same events within the same bounds and say alike when they were cut short.
 */
import { GetExecutionHistoryCommand, type HistoryEvent, type SFNClient } from '@aws-sdk/client-sfn';

export interface ExecutionHistoryPages {
  /** Oldest first. */
  readonly events: readonly HistoryEvent[];
  /** False when the bounds cut the history short (a page was left unread). */
  readonly complete: boolean;
}

/** Throws what the client throws (ExecutionDoesNotExist included: the callers decide what it means). */
export async function readExecutionHistory(
  client: SFNClient,
  executionArn: string,
  bounds: { readonly pageSize: number; readonly maxPages: number },
): Promise<ExecutionHistoryPages> {
  const events: HistoryEvent[] = [];
  let nextToken: string | undefined;
  for (let page = 0; page < bounds.maxPages; page += 1) {
    const result = await client.send(
      new GetExecutionHistoryCommand({
        executionArn,
        maxResults: bounds.pageSize,
        includeExecutionData: false,
        ...(nextToken !== undefined && { nextToken }),
      }),
    );
    events.push(...(result.events ?? []));
    nextToken = result.nextToken;
    if (nextToken === undefined) break;
  }
  return { events, complete: nextToken === undefined };
}
