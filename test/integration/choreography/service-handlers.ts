/**
 * Loading a service handler the way Lambda does, after useServiceEnvironment (./harness.ts) has set
 * its environment: a fresh copy of the module each time, so settings are parsed and clients built
 * at load as at a cold start, and one test file can run a handler under several settings.
 */
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { lambdaContext } from './harness';

export type SqsHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

export async function loadSqsHandler(load: () => Promise<{ handler: SqsHandler }>): Promise<SqsHandler> {
  Object.assign(process.env, {
    // The tests' assertions say what happened; per-record info lines and metric blobs would drown a failure.
    POWERTOOLS_LOG_LEVEL: 'ERROR',
    POWERTOOLS_METRICS_DISABLED: 'true',
  });
  let handler: SqsHandler | undefined;
  await jest.isolateModulesAsync(async () => {
    handler = (await load()).handler;
  });
  if (!handler) throw new Error('handler did not load');
  return handler;
}

/** Invokes with records; the ids of the records reported failed. */
export async function invoke(handler: SqsHandler, records: readonly SQSRecord[]): Promise<string[]> {
  const response = await handler({ Records: [...records] }, lambdaContext);
  return response.batchItemFailures.map((failure) => failure.itemIdentifier);
}
