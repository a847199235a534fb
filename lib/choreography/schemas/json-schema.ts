/**
 * The published form of the event contracts: one JSON Schema (draft-04) per event type and
 * version, generated from the zod schemas of lambdas/choreography/contracts/events.ts. It describes
 * the envelope (what consumers parse, the `detail` on the bus) with that version's `data`.
 */
import * as z from 'zod';
import {
  EnvelopeHeaderSchema,
  EVENT_DATA_SCHEMAS,
  EVENT_TYPES,
  type EventType,
  knownVersions,
} from '../../../lambdas/choreography/contracts';

export type JsonSchema = Readonly<Record<string, unknown>>;

/** One event type at one version. */
export interface EventVersion {
  readonly type: EventType;
  readonly version: number;
}

/** Every event type at every version the contracts know, in contract order. */
export function eventVersions(): EventVersion[] {
  return EVENT_TYPES.flatMap((type) => knownVersions(type).map((version) => ({ type, version })));
}

/** File stem of an event version's published files: `<Type>.v<N>`. */
export const eventVersionName = ({ type, version }: EventVersion): string => `${type}.v${version}`;

/** The zod schema of a whole event (envelope and data) of one type and version. */
export function eventZodSchema({ type, version }: EventVersion): z.ZodType {
  const data = (EVENT_DATA_SCHEMAS[type] as Record<number, z.ZodType | undefined>)[version];
  if (!data) throw new Error(`${type} has no schema version ${version}`);
  return EnvelopeHeaderSchema.extend({
    type: z.literal(type),
    schemaVersion: z.literal(version),
    data,
  });
}

/** The JSON Schema (draft-04) of an event type at a version. */
export function eventJsonSchema(event: EventVersion): JsonSchema {
  return {
    ...z.toJSONSchema(eventZodSchema(event), { target: 'draft-4' }),
    title: eventVersionName(event),
    description: `Drone delivery event ${event.type}, schema version ${event.version} (the envelope; on the delivery bus, the event's detail)`,
  };
}
