/**
 * Status notifier (DESIGN.md, Per-client reply queues): on the state table's stream, tells each
 * order's client its status changes on the client's own FIFO reply queue. Composition only.
 */
import { createDocumentClient } from '../../shared/aws-clients/dynamodb';
import { createEventBridgeClient } from '../../shared/aws-clients/eventbridge';
import { createSqsClient } from '../../shared/aws-clients/sqs';
import { requireEnv } from '../../shared/env';
import { createObservability, instrumentedHandler } from '../../shared/observability';
import { DynamoAlertOutbox } from '../adapters/alert-outbox';
import { EventBridgeAlertPublisher } from '../adapters/alert-publisher';
import { SqsClientReplies } from '../adapters/client-replies';
import { readClientRegistry } from '../adapters/runtime-config';
import { statusNotifier } from '../adapters/status-notifier';
import { EnvKey, type OrderMetric } from '../contracts';

const observability = createObservability<OrderMetric>();

export const handler = instrumentedHandler(
  observability,
  statusNotifier({
    registry: readClientRegistry(),
    replies: new SqsClientReplies(createSqsClient(observability.tracer)),
    alerts: new EventBridgeAlertPublisher(
      createEventBridgeClient(observability.tracer),
      requireEnv(EnvKey.AlertBusName),
    ),
    outbox: new DynamoAlertOutbox(
      createDocumentClient(observability.tracer),
      requireEnv(EnvKey.StateTableName),
    ),
    observability,
  }),
);
