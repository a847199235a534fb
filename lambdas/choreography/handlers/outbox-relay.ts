/**
 * Outbox relay (one function per service table, on the table's stream; DESIGN.md "Outbox relay"):
 * publishes each change log entry a commit appended to its destination, in order. Composition only.
 */
import { createObservability, instrumentedHandler } from '../../shared/observability';
import { createPublisherClients } from '../adapters/outbox-clients';
import { AwsOutboxPublisher } from '../adapters/outbox-publisher';
import { outboxRelay } from '../adapters/outbox-relay';
import type { DeliveryMetric } from '../contracts';

const observability = createObservability<DeliveryMetric>();
const { tracer } = observability;

// The clients of this relay's destinations only (its service's): the others' SDK modules stay unloaded.
const publisher = new AwsOutboxPublisher(createPublisherClients(tracer));

export const handler = instrumentedHandler(observability, outboxRelay({ publisher, observability }));
