/**
 * The messages the models feed the rules, built as producers build them (eventIdOf, the current
 * schema version) and read back through the contracts' parser: the model never hands a rule an
 * event no consumer would accept.
 */
import {
  currentVersion,
  type DeliveryEvent,
  type EventData,
  type EventType,
  parseEvent,
  type ServiceName,
} from '../../../lambdas/choreography/contracts';
import { eventIdOf } from '../../../lambdas/choreography/protocol';

/** The instant every model decides at: time does not pass in the models (DESIGN.md "Model-checked"). */
export const MODEL_NOW = new Date('2030-01-01T10:00:00.000Z');

/** The one booking window every model's messages carry (windows never end in the models). */
export const MODEL_WINDOW = {
  start: MODEL_NOW.toISOString(),
  end: new Date(MODEL_NOW.getTime() + 600_000).toISOString(),
} as const;

export function modelEnvelope<T extends EventType>(
  type: T,
  data: EventData<T>,
  at: { readonly producer: ServiceName; readonly deliveryId: string; readonly sequence: number },
): DeliveryEvent<T> {
  const body = {
    type,
    schemaVersion: currentVersion(type),
    eventId: eventIdOf(at.producer, at.deliveryId, at.sequence),
    deliveryId: at.deliveryId,
    correlationId: `corr-${at.deliveryId}`,
    sequence: at.sequence,
    producer: at.producer,
    occurredAt: MODEL_NOW.toISOString(),
    data,
  };
  const parsed = parseEvent(JSON.stringify(body), [type]);
  if (!parsed.ok) throw new Error(`the model's ${type} does not parse: ${parsed.detail}`);
  return parsed.event as DeliveryEvent<T>;
}
