/**
 * The acceptance suite's only knowledge of the system under test: a target description. It is one
 * of
 *   - the outputs file of `cdk deploy --outputs-file F` or `cdklocal deploy --outputs-file F`
 *     (`{ "<StackName>": { "ApiUrl": ..., ... } }`),
 *   - the file the local runtime writes (`.local/target.json`: outputs plus region and endpoints).
 * Nothing else about the deployment is assumed: the tests talk to the API and read the stores.
 */
import { readFileSync } from 'node:fs';

export const OUTPUT_KEYS = [
  'ApiUrl',
  'StateTableName',
  'OrdersTableName',
  'LedgerTableName',
  'AlertInboxQueueUrl',
  'ConflictQueueUrl',
] as const;
export type OutputKey = (typeof OUTPUT_KEYS)[number];

export type ServiceName = 'dynamodb' | 'sqs' | 'sfn' | 'events';

export interface TargetDescription {
  readonly kind: 'local' | 'localstack' | 'aws';
  readonly region: string;
  /** Service endpoints; absent for AWS (the SDK's defaults). */
  readonly endpoints: Partial<Record<ServiceName, string>>;
  readonly outputs: Readonly<Record<OutputKey, string>> & Readonly<Record<string, string>>;
  /** API key for the x-api-key header (AWS, LocalStack and the local runtime enforce it). */
  readonly apiKey?: string;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function pickOutputs(raw: Record<string, unknown>): Record<string, unknown> {
  if (isRecord(raw.outputs)) return raw.outputs;
  if (typeof raw.ApiUrl === 'string') return raw;
  const stacks = Object.values(raw)
    .filter(isRecord)
    .filter((stack) => typeof stack.ApiUrl === 'string');
  if (stacks.length !== 1) {
    throw new Error(
      `Target description: expected exactly one stack with an ApiUrl output, found ${stacks.length}. ` +
        'Pass the file written by `cdk deploy --outputs-file` for this app, or .local/target.json.',
    );
  }
  return stacks[0] as Record<string, unknown>;
}

/** Parses a target description; throws naming the missing or malformed field. */
export function parseTargetDescription(
  raw: unknown,
  defaults: { kind: TargetDescription['kind']; region?: string; apiKey?: string },
): TargetDescription {
  if (!isRecord(raw)) throw new Error('Target description must be a JSON object');
  const outputs = pickOutputs(raw);
  const missing = OUTPUT_KEYS.filter((key) => typeof outputs[key] !== 'string' || outputs[key] === '');
  if (missing.length > 0) {
    throw new Error(`Target description is missing outputs: ${missing.join(', ')}`);
  }
  const endpoints: Partial<Record<ServiceName, string>> = {};
  if (isRecord(raw.endpoints)) {
    for (const [service, url] of Object.entries(raw.endpoints)) {
      if (typeof url === 'string') endpoints[service as ServiceName] = url;
    }
  }
  const region =
    (typeof raw.region === 'string' && raw.region) ||
    defaults.region ||
    process.env.AWS_REGION ||
    'us-east-1';
  const kind =
    raw.kind === 'local' || raw.kind === 'localstack' || raw.kind === 'aws' ? raw.kind : defaults.kind;
  const apiKey = defaults.apiKey ?? (typeof raw.apiKey === 'string' ? raw.apiKey : undefined);
  return {
    kind,
    region,
    endpoints,
    outputs: outputs as TargetDescription['outputs'],
    ...(apiKey ? { apiKey } : {}),
  };
}

export function loadTargetDescription(
  file: string,
  defaults: { kind: TargetDescription['kind']; region?: string; apiKey?: string },
): TargetDescription {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(`Cannot read target description ${file}: ${(error as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new Error(`Target description ${file} is not JSON: ${(error as Error).message}`);
  }
  return parseTargetDescription(raw, defaults);
}

/** Every endpoint a LocalStack or local target names must be on this machine. */
export function assertAllEndpointsLocal(target: TargetDescription): void {
  const urls = [target.outputs.ApiUrl, ...Object.values(target.endpoints)].filter(Boolean) as string[];
  const remote = urls.filter((url) => !isLoopbackUrl(url));
  if (remote.length > 0) {
    throw new Error(`Refusing to run: these endpoints are not local: ${remote.join(', ')}`);
  }
}

export function isLoopbackUrl(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    return false;
  }
  return (
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    host === '[::1]' ||
    host === '::1' ||
    /^127(\.\d{1,3}){3}$/.test(host) ||
    host === 'localhost.localstack.cloud' ||
    host.endsWith('.localhost.localstack.cloud')
  );
}
