/** Ingestion projection (projection queue, FIFO, fed by the delivery bus): lifecycle events → read model. */
import { consumerHandler } from '../adapters/consumer-root';
import { ConsumerSettingsSchema, ServiceName } from '../contracts';
import { deliveryKeyOf, projectLifecycleEvent } from '../domain/ingestion';

export const handler = consumerHandler(ConsumerSettingsSchema, () => ({
  service: ServiceName.Ingestion,
  itemKeyOf: (event) => deliveryKeyOf(event.deliveryId),
  react: (current, event, now) => projectLifecycleEvent(current, event, now),
}));
