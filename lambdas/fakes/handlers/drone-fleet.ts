/**
 * The fake drone fleet (fleet queue, standard, fed by the delivery bus rule on DeliveryScheduled with
 * InputPath $.detail): flies each scheduled delivery and reports its progress to the delivery queue
 * (FIFO, group = deliveryId, dedup = eventId), sent by the outbox relay's own publisher so the
 * reports carry exactly the keys and attributes of every other message on that queue.
 *
 * A flight waits in the invocation (FIFO queues take no per-message delay): the function's timeout
 * must exceed pickupMillis + flightMillis. A redelivered schedule flies again with the same event
 * ids, which the queue's de-duplication and the Delivery service's markers absorb.
 */
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { createPublisherClients } from '../../choreography/adapters/outbox-clients';
import { AwsOutboxPublisher } from '../../choreography/adapters/outbox-publisher';
import {
  CONSUMED_EVENT_TYPES,
  type DeliveryEvent,
  type EventType,
  FlightSettingsSchema,
  parseEvent,
  ServiceName,
} from '../../choreography/contracts';
import { readServiceSettings } from '../../choreography/kit';
import { sleep } from '../../shared/clock';
import { createObservability, instrumentedHandler } from '../../shared/observability';
import { processSqsBatch } from '../../shared/sqs-batch';
import { flightPlan } from '../domain/drone-flight';

const settings = readServiceSettings(FlightSettingsSchema);
const observability = createObservability();
const { logger, tracer } = observability;
// The fleet only ever sends to the delivery queue, its one destination variable: one client.
const publisher = new AwsOutboxPublisher(createPublisherClients(tracer));
const accepted = CONSUMED_EVENT_TYPES[
  ServiceName.DroneFleet
] as readonly (typeof EventType.DeliveryScheduled)[];

export const handler = instrumentedHandler(
  observability,
  (event: SQSEvent, context: Context): Promise<SQSBatchResponse> =>
    processSqsBatch(
      event,
      context,
      async (record) => {
        const parsed = parseEvent(record.body, accepted);
        if (!parsed.ok) {
          // A drone flies only what it understands; a bad schedule is dropped, loudly, not retried.
          logger.error('Not a schedule the fleet can fly', {
            messageId: record.messageId,
            reasonCode: parsed.reasonCode,
            detail: parsed.detail,
          });
          return;
        }
        const scheduled = parsed.event as DeliveryEvent<typeof EventType.DeliveryScheduled>;
        const log = logger.createChild({
          persistentKeys: { deliveryId: scheduled.deliveryId, correlationId: scheduled.correlationId },
        });
        for (const leg of flightPlan(scheduled, settings, new Date())) {
          await sleep(leg.afterMillis);
          await publisher.publish(leg.entry);
          log.info('Flight progress reported', { stage: leg.stage, eventId: leg.entry.id });
        }
      },
      { tracer, recordSubsegment: 'flight' },
    ),
);
