/**
 * The composition root every FIFO consumer handler shares: settings parsed once at cold start,
 * observability (Powertools adds the `service` metric dimension from POWERTOOLS_SERVICE_NAME), one document client and one SQS client per
 * module, the service's store and dead-letterer, and the runner wrapped in instrumentedHandler.
 * A service handler is then: `export const handler = consumerHandler(schema, (kit) => definition)`.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type * as z from 'zod';
import { createDocumentClient } from '../../shared/aws-clients/dynamodb';
import { createSqsClient } from '../../shared/aws-clients/sqs';
import { requireEnv } from '../../shared/env';
import { createObservability, instrumentedHandler, type Observability } from '../../shared/observability';
import { ChoreographyEnvKey, type ConsumerSettings, type DeliveryMetric, type EventType } from '../contracts';
import { SqsDeadLetterer } from './dead-letterer';
import { type ConsumerDefinition, fifoConsumer } from './fifo-consumer';
import { DynamoServiceStore } from './service-store';
import { readServiceSettings } from './settings';

/** What the composition root hands the service to build its definition with. */
export interface ConsumerKit<S extends ConsumerSettings> {
  readonly settings: S;
  readonly store: DynamoServiceStore;
  readonly documentClient: DynamoDBDocumentClient;
  readonly observability: Observability<DeliveryMetric>;
}

export function consumerHandler<Schema extends z.ZodType<ConsumerSettings>, T extends EventType>(
  settingsSchema: Schema,
  define: (kit: ConsumerKit<z.output<Schema>>) => ConsumerDefinition<T>,
  env: NodeJS.ProcessEnv = process.env,
): (event: SQSEvent, context: Context) => Promise<SQSBatchResponse> {
  const settings = readServiceSettings(settingsSchema, env);
  const observability = createObservability<DeliveryMetric>({}, env);
  const documentClient = createDocumentClient(observability.tracer);
  const store = new DynamoServiceStore(
    documentClient,
    requireEnv(ChoreographyEnvKey.TableName, env),
    settings.processedMessageTtlSeconds,
  );
  const definition = define({ settings, store, documentClient, observability });
  const deadLetterer = new SqsDeadLetterer(
    createSqsClient(observability.tracer),
    requireEnv(ChoreographyEnvKey.DeadLetterQueueUrl, env),
    definition.service,
  );
  return instrumentedHandler(
    observability,
    fifoConsumer(definition, { store, deadLetterer, settings, observability }),
  );
}
