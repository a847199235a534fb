/**
 * The committed results as the checks read them: bench/results.json parsed, refused with its path
 * named when it is not a results file of the schema this code writes.
 */
import { readFileSync } from 'node:fs';
import { type BenchResults, RESULTS_SCHEMA_VERSION } from '../core/results';

export function readResults(file: string): BenchResults {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(
      `${file}: not readable as JSON (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  const results = parsed as Partial<BenchResults> | null;
  if (
    results?.schemaVersion !== RESULTS_SCHEMA_VERSION ||
    !Array.isArray(results.figures) ||
    !results.commit
  ) {
    throw new Error(
      `${file}: not bench results of schema version ${RESULTS_SCHEMA_VERSION} (run \`npm run bench\`)`,
    );
  }
  return results as BenchResults;
}
