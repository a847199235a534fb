/**
 * `npm run schemas`: writes the JSON Schema of every event type and version and one sample event
 * of each into lambdas/choreography/contracts/published/. Refuses to overwrite a published schema
 * with a breaking change (a breaking change is a new event type, never an edit of a version);
 * `-- --allow-breaking` overrides that, for a schema that was never consumed.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { breakingChanges } from '../lib/choreography/schemas/compatibility';
import { eventJsonSchema, eventVersionName, eventVersions } from '../lib/choreography/schemas/json-schema';
import {
  PUBLISHED_DIR,
  publishedSchemaPath,
  readPublishedSchema,
  SAMPLES_DIR,
  samplePath,
  toFileJson,
} from '../lib/choreography/schemas/published';
import { sampleEvent } from '../lib/choreography/schemas/samples';

const allowBreaking = process.argv.includes('--allow-breaking');
mkdirSync(SAMPLES_DIR, { recursive: true });
let refused = 0;
for (const event of eventVersions()) {
  const current = eventJsonSchema(event);
  const published = readPublishedSchema(event);
  const breaking = published ? breakingChanges(published, current) : [];
  if (breaking.length > 0 && !allowBreaking) {
    refused += 1;
    console.error(`${eventVersionName(event)}: breaking change, not written:\n  ${breaking.join('\n  ')}`);
    continue;
  }
  writeFileSync(publishedSchemaPath(event), toFileJson(current));
  writeFileSync(samplePath(event), toFileJson(sampleEvent(event)));
}
if (refused > 0) {
  console.error(
    `${refused} schema(s) not written. Publish the change as a new event type (or add only optional fields in a new version).`,
  );
  process.exit(1);
}
// The repository's formatter has the last word on layout (the tests compare parsed JSON).
execFileSync(
  path.resolve(__dirname, '..', 'node_modules', '.bin', 'biome'),
  ['format', '--write', PUBLISHED_DIR],
  {
    stdio: 'ignore',
  },
);
console.log(`Wrote ${eventVersions().length} schemas and samples to ${PUBLISHED_DIR}`);
