/**
 * The storage emulators behind the local runtime: DynamoDB Local (AWS's own, see
 * dynamodb/dynamodb-local.ts; optionally persisted in a directory) and local-aws-sqs (SQS, in
 * memory only: it has no persistence).
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startDynamoDbLocal } from './dynamodb/dynamodb-local';

export interface RunningServer {
  readonly endpoint: string;
  stop(): Promise<void>;
}

export function listen(server: Server, port = 0, host = '127.0.0.1'): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address() as AddressInfo;
      resolve(`http://${host}:${address.port}`);
    });
  });
}

export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) {
      resolve();
      return;
    }
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/** DynamoDB Local; `dataDirectory` persists tables across restarts, otherwise everything is in memory. */
export function startDynamoDbEmulator(dataDirectory?: string): Promise<RunningServer> {
  return startDynamoDbLocal(dataDirectory ? { dataDirectory } : {});
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
