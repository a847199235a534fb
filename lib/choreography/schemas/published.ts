/**
 * Where the published schemas and samples live (checked in, written by `npm run schemas`), and
 * reading them back.
 */
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { type EventVersion, eventVersionName, type JsonSchema } from './json-schema';

export const PUBLISHED_DIR = path.resolve(
  __dirname,
  '..',
  '..',
  '..',
  'lambdas',
  'choreography',
  'contracts',
  'published',
);
export const SAMPLES_DIR = path.join(PUBLISHED_DIR, 'samples');

export const publishedSchemaPath = (event: EventVersion): string =>
  path.join(PUBLISHED_DIR, `${eventVersionName(event)}.schema.json`);
export const samplePath = (event: EventVersion): string =>
  path.join(SAMPLES_DIR, `${eventVersionName(event)}.json`);

/** The published schema of an event version, or undefined when it was never published. */
export function readPublishedSchema(event: EventVersion): JsonSchema | undefined {
  const file = publishedSchemaPath(event);
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as JsonSchema) : undefined;
}

export function readSample(event: EventVersion): Record<string, unknown> {
  return JSON.parse(readFileSync(samplePath(event), 'utf8')) as Record<string, unknown>;
}

/** JSON as the published files hold it: two-space indented, newline-terminated. */
export const toFileJson = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;
