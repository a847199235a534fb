/**
 * The storage emulators behind the local runtime: dynalite (DynamoDB, optionally persisted in a
 * LevelDB directory) and the runtime's own SQS service (optionally persisted in a journal).
 */
import { mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import { closeServer, listen, type RunningServer } from './http-server';
import { startSqsService } from './sqs';

export type { RunningServer };

/** dynalite; `dataDirectory` persists tables across restarts, otherwise everything is in memory. */
export async function startDynamoDbEmulator(dataDirectory?: string): Promise<RunningServer> {
  // dynalite ships no types.
  const dynalite = require('dynalite') as (options: Record<string, unknown>) => Server;
  if (dataDirectory) mkdirSync(dataDirectory, { recursive: true });
  const server = dynalite({
    createTableMs: 0,
    deleteTableMs: 0,
    updateTableMs: 0,
    ...(dataDirectory ? { path: dataDirectory } : {}),
  });
  const endpoint = await listen(server);
  // dynalite's close also closes its store (releasing the LevelDB lock of a data directory).
  return { endpoint, stop: () => closeServer(server) };
}

/**
 * The runtime's own SQS service (lib/local-runtime/sqs): FIFO message groups, deduplication, redrive
 * and long polls as AWS documents them; `dataDirectory` keeps queues and messages across restarts.
 */
export async function startSqsEmulator(options: {
  region: string;
  accountId: string;
  dataDirectory?: string;
}): Promise<RunningServer> {
  return startSqsService(options);
}
