/**
 * The storage emulators behind the local runtime: DynamoDB Local (AWS's own, see
 * dynamodb/dynamodb-local.ts; optionally persisted in a directory) and the runtime's own SQS service
 * (optionally persisted in a journal).
 */
import { startDynamoDbLocal } from './dynamodb/dynamodb-local';
import type { RunningServer } from './protocol/http-server';
import { type RunningSqsService, type SqsServiceOptions, startSqsService } from './sqs';

export type { RunningServer, RunningSqsService };

/** DynamoDB Local; `dataDirectory` persists tables across restarts, otherwise everything is in memory. */
export function startDynamoDbEmulator(dataDirectory?: string): Promise<RunningServer> {
  return startDynamoDbLocal(dataDirectory ? { dataDirectory } : {});
}

/**
 * The runtime's own SQS service (lib/local-runtime/sqs): FIFO message groups, deduplication, redrive
 * and long polls as AWS documents them; `dataDirectory` keeps queues and messages across restarts;
 * `iam` authenticates and authorizes every request (the runtime's account, or a test's).
 */
export async function startSqsEmulator(options: SqsServiceOptions): Promise<RunningSqsService> {
  return startSqsService(options);
}
