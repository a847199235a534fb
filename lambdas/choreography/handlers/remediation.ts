/**
 * Remediation (an event source mapping on every consumer's dead-letter queue, FIFO): one decision
 * per dead letter. Composition only: the rules are domain/remediation.ts, the record handling
 * adapters/remediation-consumer.ts. DEAD_LETTER_QUEUE_URLS names the queues (see
 * adapters/dead-letter-queues.ts for why the URLs are configured, not derived from the ARN).
 */
import { createDocumentClient } from '../../shared/aws-clients/dynamodb';
import { createSqsClient } from '../../shared/aws-clients/sqs';
import { requireEnv } from '../../shared/env';
import { createObservability, instrumentedHandler } from '../../shared/observability';
import { readDeadLetterQueues } from '../adapters/dead-letter-queues';
import { remediationConsumer } from '../adapters/remediation-consumer';
import {
  ChoreographyEnvKey,
  type DeliveryMetric,
  RemediationSettingsSchema,
  ServiceName,
} from '../contracts';
import { DynamoServiceStore, readServiceSettings } from '../kit';

const settings = readServiceSettings(RemediationSettingsSchema);
const queues = readDeadLetterQueues();
const observability = createObservability<DeliveryMetric>({
  defaultDimensions: { service: ServiceName.Remediation },
});
const documents = createDocumentClient(observability.tracer);
const store = new DynamoServiceStore(
  documents,
  requireEnv(ChoreographyEnvKey.TableName),
  settings.processedMessageTtlSeconds,
);

export const handler = instrumentedHandler(
  observability,
  remediationConsumer({
    store,
    documents,
    sqs: createSqsClient(observability.tracer),
    queues,
    settings,
    observability,
  }),
);
