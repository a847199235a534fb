/**
 * Reading a message body as an event of the types a consumer accepts, and saying precisely why it
 * cannot be one: POISON (not JSON, or no delivery id to act on), UNKNOWN_VERSION (a version these
 * contracts do not list), SCHEMA_INVALID (anything else that does not fit). Each of these is
 * dead-lettered at once: retrying cannot make the message acceptable.
 */
import type * as z from 'zod';
import { jsonParser } from '../../shared/parse';
import {
  DELIVERY_ID_PATTERN,
  type DeliveryEvent,
  EnvelopeHeaderSchema,
  EVENT_DATA_SCHEMAS,
  type EventType,
} from './events';
import { ReasonCode } from './reason-codes';

export type EventParseOutcome<T extends EventType> =
  | { readonly ok: true; readonly event: DeliveryEvent<T> }
  | {
      readonly ok: false;
      readonly reasonCode:
        | typeof ReasonCode.Poison
        | typeof ReasonCode.SchemaInvalid
        | typeof ReasonCode.UnknownVersion;
      readonly detail: string;
      /** What could be read of the message, to route the dead letter (absent for poison). */
      readonly deliveryId?: string;
      readonly correlationId?: string;
      readonly eventId?: string;
    };

const headerOf = jsonParser(EnvelopeHeaderSchema);

function readable(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

const asText = (value: unknown) => (typeof value === 'string' ? value : undefined);

export function parseEvent<T extends EventType>(text: string, accepted: readonly T[]): EventParseOutcome<T> {
  const raw = readable(text);
  const deliveryId = asText(raw?.deliveryId);
  if (!raw || !deliveryId || !DELIVERY_ID_PATTERN.test(deliveryId)) {
    return {
      ok: false,
      reasonCode: ReasonCode.Poison,
      detail: raw ? 'the message names no valid deliveryId' : 'the message is not a JSON object',
    };
  }
  const known = {
    deliveryId,
    ...(asText(raw.correlationId) ? { correlationId: asText(raw.correlationId) } : {}),
    ...(asText(raw.eventId) ? { eventId: asText(raw.eventId) } : {}),
  };
  const header = headerOf(text);
  if (!header.ok)
    return { ok: false, reasonCode: ReasonCode.SchemaInvalid, detail: header.summary, ...known };
  const { type, schemaVersion } = header.value;
  if (!(accepted as readonly EventType[]).includes(type)) {
    return {
      ok: false,
      reasonCode: ReasonCode.SchemaInvalid,
      detail: `event type ${type} is not one this consumer accepts (${accepted.join(', ')})`,
      ...known,
    };
  }
  const versions = EVENT_DATA_SCHEMAS[type] as Record<number, z.ZodType>;
  const schema = versions[schemaVersion];
  if (!schema) {
    return {
      ok: false,
      reasonCode: ReasonCode.UnknownVersion,
      detail: `${type} schemaVersion ${schemaVersion} is unknown (known: ${Object.keys(versions).join(', ')})`,
      ...known,
    };
  }
  const data = schema.safeParse(header.value.data);
  if (!data.success) {
    const problems = data.error.issues.map((issue) => `data.${issue.path.join('.')}: ${issue.message}`);
    return { ok: false, reasonCode: ReasonCode.SchemaInvalid, detail: problems.join('; '), ...known };
  }
  return { ok: true, event: { ...header.value, data: data.data } as unknown as DeliveryEvent<T> };
}
