/**
 * The storage emulators behind the local runtime: dynalite (DynamoDB, optionally persisted in a
 * LevelDB directory) and local-aws-sqs (SQS, in memory only: it has no persistence).
 */
import { mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { closeServer, listen, type RunningServer } from './http-server';

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

export async function startSqsEmulator(options: {
  region: string;
  accountId: string;
}): Promise<RunningServer> {
  const { createSqsServer } = require('local-aws-sqs') as {
    createSqsServer(options: Record<string, unknown>): Promise<Server>;
  };
  const server = await createSqsServer({
    port: 0,
    hostname: '127.0.0.1',
    region: options.region,
    accountId: options.accountId,
    emulateQueueCreationLifecycle: false,
    emulateLazyQueues: false,
  });
  const address = server.address() as AddressInfo | null;
  const endpoint = address ? `http://127.0.0.1:${address.port}` : await listen(server);
  return { endpoint, stop: () => closeServer(server) };
}
