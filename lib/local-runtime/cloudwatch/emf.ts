/**
 * Embedded Metric Format (EMF): the structured log lines CloudWatch Logs turns into metrics
 * (Powertools Metrics writes them to stdout). One line is a JSON object whose `_aws` member says
 * which of its root members are metrics:
 *
 *   { "_aws": { "Timestamp": 1574109732004,
 *               "CloudWatchMetrics": [{ "Namespace": "App", "Dimensions": [["Service"]],
 *                                       "Metrics": [{ "Name": "Latency", "Unit": "Milliseconds",
 *                                                     "StorageResolution": 60 }] }] },
 *     "Service": "orders", "Latency": [12, 15] }
 *
 * Per the specification: every directive's metric is recorded once per dimension set (an empty set
 * is the metric without dimensions), a metric's value is a number or an array of up to 100 numbers,
 * dimension values are the root members the set names, which must be strings. A line that is not
 * JSON, or has no `_aws`, is ordinary log output; a line with `_aws` that breaks the specification
 * is rejected whole (CloudWatch Logs keeps it as a log event and extracts no metric).
 */

/** One recorded metric value (or several, from an array), ready for the store. */
export interface MetricDatum {
  readonly namespace: string;
  readonly metricName: string;
  /** Name -> value, as the dimension set names them. */
  readonly dimensions: Readonly<Record<string, string>>;
  readonly unit: string;
  /** 1 (high resolution) or 60. */
  readonly storageResolution: number;
  readonly values: readonly number[];
  /** Epoch milliseconds. */
  readonly timestamp: number;
}

export type EmfLine =
  | { readonly kind: 'not-emf' }
  | { readonly kind: 'metrics'; readonly data: readonly MetricDatum[] }
  | { readonly kind: 'rejected'; readonly reason: string };

const MAX_DIMENSIONS_PER_SET = 30;
const MAX_VALUES = 100;
const MAX_METRICS_PER_DIRECTIVE = 100;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Reads one line of function output. `now` stamps a line without `_aws.Timestamp`. */
export function parseEmfLine(line: string, now: number): EmfLine {
  const start = line.indexOf('{');
  // Cheap test first: most output is not EMF. The text may carry a prefix (a runtime's log format).
  if (start < 0 || !line.includes('"_aws"')) return { kind: 'not-emf' };
  let document: unknown;
  try {
    document = JSON.parse(line.slice(start));
  } catch {
    return { kind: 'rejected', reason: 'not valid JSON' };
  }
  if (!isRecord(document) || !isRecord(document._aws))
    return { kind: 'rejected', reason: '_aws is not an object' };
  try {
    return { kind: 'metrics', data: readDirectives(document, document._aws, now) };
  } catch (error) {
    return { kind: 'rejected', reason: (error as Error).message };
  }
}

function readDirectives(
  root: Record<string, unknown>,
  metadata: Record<string, unknown>,
  now: number,
): MetricDatum[] {
  const rawTimestamp = metadata.Timestamp;
  if (rawTimestamp !== undefined && (typeof rawTimestamp !== 'number' || !Number.isFinite(rawTimestamp))) {
    throw new Error('_aws.Timestamp is not a number of epoch milliseconds');
  }
  const timestamp = rawTimestamp ?? now;
  const directives = metadata.CloudWatchMetrics;
  if (!Array.isArray(directives)) throw new Error('_aws.CloudWatchMetrics is not an array');
  const data: MetricDatum[] = [];
  for (const directive of directives) {
    if (!isRecord(directive)) throw new Error('a CloudWatchMetrics entry is not an object');
    const namespace = directive.Namespace;
    if (typeof namespace !== 'string' || namespace === '') throw new Error('a directive has no Namespace');
    const dimensionSets = directive.Dimensions ?? [[]];
    if (!Array.isArray(dimensionSets)) throw new Error(`Dimensions of ${namespace} is not an array of sets`);
    const sets = dimensionSets.map((set) => dimensionsOf(root, set));
    const metrics = directive.Metrics;
    if (!Array.isArray(metrics) || metrics.length > MAX_METRICS_PER_DIRECTIVE) {
      throw new Error(`Metrics of ${namespace} is not an array of at most ${MAX_METRICS_PER_DIRECTIVE}`);
    }
    for (const metric of metrics) {
      if (!isRecord(metric) || typeof metric.Name !== 'string' || metric.Name === '') {
        throw new Error(`a metric of ${namespace} has no Name`);
      }
      const values = valuesOf(root[metric.Name], metric.Name);
      const storageResolution = metric.StorageResolution ?? 60;
      if (storageResolution !== 1 && storageResolution !== 60) {
        throw new Error(`StorageResolution of ${metric.Name} is neither 1 nor 60`);
      }
      const unit = typeof metric.Unit === 'string' && metric.Unit !== '' ? metric.Unit : 'None';
      for (const dimensions of sets) {
        data.push({
          namespace,
          metricName: metric.Name,
          dimensions,
          unit,
          storageResolution,
          values,
          timestamp,
        });
      }
    }
  }
  return data;
}

function dimensionsOf(root: Record<string, unknown>, set: unknown): Record<string, string> {
  if (!Array.isArray(set) || set.length > MAX_DIMENSIONS_PER_SET) {
    throw new Error(`a dimension set is not an array of at most ${MAX_DIMENSIONS_PER_SET} names`);
  }
  const dimensions: Record<string, string> = {};
  for (const name of set) {
    const value = typeof name === 'string' ? root[name] : undefined;
    if (typeof value !== 'string') throw new Error(`dimension ${String(name)} has no string value`);
    dimensions[name as string] = value;
  }
  return dimensions;
}

function valuesOf(value: unknown, name: string): number[] {
  const values = Array.isArray(value) ? value : [value];
  if (values.length === 0 || values.length > MAX_VALUES) {
    throw new Error(`metric ${name} has no value or more than ${MAX_VALUES}`);
  }
  for (const item of values) {
    if (typeof item !== 'number' || !Number.isFinite(item))
      throw new Error(`metric ${name} has a non-numeric value`);
  }
  return values as number[];
}

/** Reads function output into a metric store, counting what it takes and what it rejects. */
export class EmfReader {
  private documents = 0;
  private rejected = 0;

  /** Records the line's metrics; answers why a line that claims to be EMF was rejected. */
  // wall clock: a default only; the runtime passes its clock's now
  read(line: string, store: { put(datum: MetricDatum): void }, now = Date.now()): string | undefined {
    const parsed = parseEmfLine(line, now);
    if (parsed.kind === 'not-emf') return undefined;
    if (parsed.kind === 'rejected') {
      this.rejected += 1;
      return parsed.reason;
    }
    this.documents += 1;
    for (const datum of parsed.data) store.put(datum);
    return undefined;
  }

  counts(): { readonly documents: number; readonly rejected: number } {
    return { documents: this.documents, rejected: this.rejected };
  }
}
