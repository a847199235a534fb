/**
 * Outbox relay (one function per service table, on the table's stream; DESIGN.md "Outbox relay"):
 * publishes each change log entry a commit appended to its destination, in order. Composition only.
 */
import { createEventBridgeClient } from '../../shared/aws-clients/eventbridge';
import { createSnsClient } from '../../shared/aws-clients/sns';
import { createSqsClient } from '../../shared/aws-clients/sqs';
import { createObservability, instrumentedHandler } from '../../shared/observability';
import { AwsOutboxPublisher } from '../adapters/outbox-publisher';
import { outboxRelay } from '../adapters/outbox-relay';
import type { DeliveryMetric } from '../contracts';

const observability = createObservability<DeliveryMetric>();
const { tracer } = observability;

const publisher = new AwsOutboxPublisher({
  sns: createSnsClient(tracer),
  sqs: createSqsClient(tracer),
  eventBridge: createEventBridgeClient(tracer),
});

export const handler = instrumentedHandler(observability, outboxRelay({ publisher, observability }));
