/**
 * Loads a choreography service handler the way Lambda does: environment first (its table, its
 * dead-letter queue, its settings, the emulators' endpoints), then a fresh copy of the module, so
 * settings are parsed and clients created at load exactly as at a cold start.
 */
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { ChoreographyEnvKey } from '../../../lambdas/choreography/contracts';
import { PowertoolsEnvKey } from '../../../lambdas/shared/env';
import { useEmulatorEndpoints } from '../../support/emulators';
import { type ChoreographyWorld, lambdaContext } from './harness';

export type SqsHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

export async function loadSqsHandler(
  world: ChoreographyWorld,
  load: () => Promise<{ handler: SqsHandler }>,
  env: Readonly<Record<string, string>>,
): Promise<SqsHandler> {
  useEmulatorEndpoints({ dynamodb: world.dynamoEndpoint, sqs: world.sqsEndpoint });
  Object.assign(process.env, {
    [PowertoolsEnvKey.ServiceName]: 'choreography-integration-test',
    [PowertoolsEnvKey.MetricsNamespace]: 'ChoreographyTest',
    [PowertoolsEnvKey.TraceEnabled]: 'false',
    // The records' own assertions say what happened; per-record info lines would drown a failure.
    POWERTOOLS_LOG_LEVEL: 'ERROR',
    POWERTOOLS_METRICS_DISABLED: 'true',
    ...env,
  });
  let handler: SqsHandler | undefined;
  await jest.isolateModulesAsync(async () => {
    handler = (await load()).handler;
  });
  if (!handler) throw new Error('handler did not load');
  return handler;
}

/** The consumer environment every FIFO service reads. */
export const consumerEnv = (tableName: string, deadLetterQueueUrl: string, settings: object) => ({
  [ChoreographyEnvKey.TableName]: tableName,
  [ChoreographyEnvKey.DeadLetterQueueUrl]: deadLetterQueueUrl,
  [ChoreographyEnvKey.Settings]: JSON.stringify(settings),
});

/** Invokes with records; the ids of the records reported failed. */
export async function invoke(handler: SqsHandler, records: readonly SQSRecord[]): Promise<string[]> {
  const response = await handler({ Records: [...records] }, lambdaContext);
  return response.batchItemFailures.map((failure) => failure.itemIdentifier);
}
