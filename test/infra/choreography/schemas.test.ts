import {
  EVENT_DATA_SCHEMAS,
  type EventType,
  knownVersions,
  parseEvent,
} from '../../../lambdas/choreography/contracts';
import { breakingChanges } from '../../../lib/choreography/schemas/compatibility';
import {
  eventJsonSchema,
  eventVersionName,
  eventVersions,
  type JsonSchema,
} from '../../../lib/choreography/schemas/json-schema';
import { readPublishedSchema, readSample } from '../../../lib/choreography/schemas/published';
import { sampleEvent } from '../../../lib/choreography/schemas/samples';

const versions = eventVersions().map((event) => [eventVersionName(event), event] as const);

describe('published event schemas and samples (lambdas/choreography/contracts/published)', () => {
  it.each(versions)('%s: the stored sample validates against its version', (_name, event) => {
    const parsed = parseEvent(JSON.stringify(readSample(event)), [event.type]);
    expect(parsed).toMatchObject({ ok: true, event: { type: event.type, schemaVersion: event.version } });
  });

  it.each(versions)('%s: the stored sample is the generator output (run npm run schemas)', (_name, event) => {
    expect(readSample(event)).toEqual(sampleEvent(event));
  });

  it.each(versions)(
    '%s: the current zod export has no breaking change against the published schema',
    (_name, event) => {
      const published = readPublishedSchema(event);
      expect(published).toBeDefined();
      expect(breakingChanges(published as JsonSchema, eventJsonSchema(event))).toEqual([]);
    },
  );

  it.each(versions)('%s: the published schema is up to date (run npm run schemas)', (_name, event) => {
    expect(readPublishedSchema(event)).toEqual(eventJsonSchema(event));
  });

  it('every older data schema accepts every newer sample (backward compatible versions)', () => {
    const evolving = (Object.keys(EVENT_DATA_SCHEMAS) as EventType[]).filter(
      (type) => knownVersions(type).length > 1,
    );
    expect(evolving).toContain('DeliveryScheduled');
    for (const type of evolving) {
      for (const newer of knownVersions(type)) {
        const sample = readSample({ type, version: newer });
        for (const older of knownVersions(type).filter((v) => v < newer)) {
          const schema = (
            EVENT_DATA_SCHEMAS[type] as Record<number, { safeParse(v: unknown): { success: boolean } }>
          )[older];
          expect({ type, older, newer, accepted: schema?.safeParse(sample.data).success }).toEqual({
            type,
            older,
            newer,
            accepted: true,
          });
        }
      }
    }
  });

  it('each newer version only adds optional data fields to the one before', () => {
    for (const { type, version } of eventVersions().filter((event) => event.version > 1)) {
      const data = (v: number) =>
        (eventJsonSchema({ type, version: v }).properties as Record<string, JsonSchema>).data as JsonSchema;
      expect(breakingChanges(data(version - 1), data(version))).toEqual([]);
    }
  });
});

describe('the breaking change checker catches what it must (planted changes)', () => {
  const published = eventJsonSchema({ type: 'DroneScheduled', version: 1 });
  /** The parts of a JSON Schema the planted changes edit. */
  interface SchemaNode {
    properties: Record<string, SchemaNode>;
    required: string[];
    enum?: unknown[];
    type?: string;
  }
  const clone = (schema: JsonSchema = published): SchemaNode => JSON.parse(JSON.stringify(schema));
  const data = (schema: SchemaNode) => schema.properties.data as SchemaNode;
  const asSchema = (node: SchemaNode) => node as unknown as JsonSchema;

  it('a removed (or renamed) property', () => {
    const current = clone();
    const { droneId, ...others } = data(current).properties;
    data(current).properties = { ...others, drone: droneId as SchemaNode };
    expect(breakingChanges(published, asSchema(current))).toEqual([
      '$.data.droneId: property removed (or renamed)',
    ]);
  });

  it('a newly required property', () => {
    const current = clone();
    data(current).properties.pilot = { type: 'string' } as SchemaNode;
    data(current).required.push('pilot');
    expect(breakingChanges(published, asSchema(current))).toEqual(['$.data.pilot: newly required']);
  });

  it('a changed type', () => {
    const current = clone();
    data(current).properties.attempt = { type: 'string' } as SchemaNode;
    expect(breakingChanges(published, asSchema(current))).toEqual([
      '$.data.attempt: type changed from integer to string',
    ]);
  });

  it('a narrower enum', () => {
    const flight = eventJsonSchema({ type: 'FlightProgress', version: 1 });
    const current = clone(flight);
    (data(current).properties.stage as SchemaNode).enum = ['PICKED_UP', 'DELIVERED'];
    expect(breakingChanges(flight, asSchema(current))).toEqual([
      '$.data.stage: enum narrowed, lost ["FAILED"]',
    ]);
  });

  it('but not an added optional property or a wider enum', () => {
    const current = clone();
    data(current).properties.batteryPercent = { type: 'number' } as SchemaNode;
    const stage = clone(eventJsonSchema({ type: 'FlightProgress', version: 1 }));
    const widened = clone(eventJsonSchema({ type: 'FlightProgress', version: 1 }));
    (data(widened).properties.stage as SchemaNode).enum?.push('RETURNED');
    expect(breakingChanges(published, asSchema(current))).toEqual([]);
    expect(breakingChanges(asSchema(stage), asSchema(widened))).toEqual([]);
  });
});
