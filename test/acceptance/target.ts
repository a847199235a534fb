/**
 * The acceptance suite's only knowledge of the system under test: a target description. It is one
 * of
 *   - the outputs file of `cdk deploy --outputs-file F` or `cdklocal deploy --outputs-file F`
 *     (`{ "<StackName>": { "ApiUrl": ..., ... }, ... }`, one entry per deployed stack),
 *   - the file the local runtime writes (`.local/target.json`: outputs plus region and endpoints,
 *     each stack's own outputs under `stackOutputs` and its API under `apis`).
 * Each suite names the app it tests (ORDERS_APP, DELIVERIES_APP): its stack and the outputs it
 * needs; the description's `outputs` are that stack's. Nothing else about the deployment is
 * assumed: the tests talk to the API and read the stores.
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

/** A deployed app as a suite sees it: its stack's name and the outputs the suite cannot do without. */
export interface AppUnderTest {
  readonly stackName: string;
  readonly requiredOutputs: readonly string[];
  /** Environment variable holding this app's API key value (its API has its own key). */
  readonly apiKeyEnv: string;
}

export const ORDERS_APP: AppUnderTest = {
  stackName: 'SchedulerAgentSupervisor',
  requiredOutputs: OUTPUT_KEYS,
  apiKeyEnv: 'ACCEPTANCE_API_KEY',
};

/** Outputs of the DroneDelivery stack the deliveries suite reads (lib/choreography's CfnOutputs). */
export const DELIVERY_OUTPUT_KEYS = [
  'ApiUrl',
  'IngestionTableName',
  'PackageTableName',
  'DroneSchedulerTableName',
  'DeliveryTableName',
  'RemediationTableName',
  'PackageQueueUrl',
  'DeliveryQueueUrl',
  'DeliveryBusName',
  'AlertInboxQueueUrl',
] as const;

export const DELIVERIES_APP: AppUnderTest = {
  stackName: 'DroneDelivery',
  requiredOutputs: DELIVERY_OUTPUT_KEYS,
  apiKeyEnv: 'ACCEPTANCE_DELIVERIES_API_KEY',
};

export type ServiceName = 'dynamodb' | 'sqs' | 'sfn' | 'events' | 'sns' | 'cloudwatch';

export interface TargetDescription {
  readonly kind: 'local' | 'localstack' | 'aws';
  readonly region: string;
  /** Service endpoints; absent for AWS (the SDK's defaults). */
  readonly endpoints: Partial<Record<ServiceName, string>>;
  readonly outputs: Readonly<Record<OutputKey, string>> & Readonly<Record<string, string>>;
  /** API key for the x-api-key header (AWS, LocalStack and the local runtime enforce it). */
  readonly apiKey?: string;
  /**
   * The local runtime's key values by key id (an ApiKeyId output, or a client's apiKeyId in the
   * Clients output); on AWS and LocalStack a key's value is read with GetApiKey instead.
   */
  readonly apiKeysById?: Readonly<Record<string, string>>;
  /**
   * Credentials of named principals, with the principal ARN they stand for. The local runtime
   * lists `operator` (to sign requests to the AWS_IAM methods: SigV4, execute-api) and the IAM users
   * its queue policies name (a client's reply-queue reader). For AWS the standard credential chain
   * signs operator requests (its policy must allow execute-api:Invoke); add `identities` to the
   * description file to read the client queues as their principals.
   */
  readonly identities?: Readonly<Record<string, TargetIdentity>>;
}

export interface TargetIdentity {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
  /** The principal these credentials are (the local runtime's `arn:aws:iam::<account>:user/<name>`). */
  readonly userArn: string;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function pickOutputs(raw: Record<string, unknown>, app: AppUnderTest): Record<string, unknown> {
  // The local runtime's file: the stack's own outputs when it lists them (in the merged outputs one
  // stack's ApiUrl or AlertInboxQueueUrl hides the other's), else the merged outputs.
  if (isRecord(raw.stackOutputs) && isRecord(raw.stackOutputs[app.stackName])) {
    return raw.stackOutputs[app.stackName] as Record<string, unknown>;
  }
  if (isRecord(raw.outputs)) return raw.outputs;
  if (typeof raw.ApiUrl === 'string') return raw;
  // A `cdk deploy --outputs-file` file: the app's stack by name, else the one stack that can be meant.
  const named = raw[app.stackName];
  if (isRecord(named)) return named;
  const stacks = Object.values(raw)
    .filter(isRecord)
    .filter((stack) => typeof stack.ApiUrl === 'string');
  const complete = stacks.filter((stack) =>
    app.requiredOutputs.every((key) => typeof stack[key] === 'string'),
  );
  if (stacks.length === 1) return stacks[0] as Record<string, unknown>;
  if (complete.length === 1) return complete[0] as Record<string, unknown>;
  throw new Error(
    `Target description: expected the stack ${app.stackName} or exactly one stack with an ApiUrl output, ` +
      `found ${stacks.length}. Pass the file written by \`cdk deploy --outputs-file\` for this app, or .local/target.json.`,
  );
}

/** Parses a target description; throws naming the missing or malformed field. */
export function parseTargetDescription(
  raw: unknown,
  defaults: { kind: TargetDescription['kind']; region?: string; apiKey?: string },
  app: AppUnderTest = ORDERS_APP,
): TargetDescription {
  if (!isRecord(raw)) throw new Error('Target description must be a JSON object');
  const outputs = pickOutputs(raw, app);
  const missing = app.requiredOutputs.filter(
    (key) => typeof outputs[key] !== 'string' || outputs[key] === '',
  );
  if (missing.length > 0) {
    throw new Error(`Target description is missing outputs of ${app.stackName}: ${missing.join(', ')}`);
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
  const apiKey = defaults.apiKey ?? ownApiKey(raw, app);
  const apiKeysById = ownApiKeysById(raw, app);
  const identities = identitiesOf(raw);
  return {
    kind,
    region,
    endpoints,
    outputs: outputs as TargetDescription['outputs'],
    ...(apiKey ? { apiKey } : {}),
    ...(apiKeysById ? { apiKeysById } : {}),
    ...(identities ? { identities } : {}),
  };
}

function identitiesOf(raw: Record<string, unknown>): Record<string, TargetIdentity> | undefined {
  if (!isRecord(raw.identities)) return undefined;
  const identities: Record<string, TargetIdentity> = {};
  for (const [name, value] of Object.entries(raw.identities)) {
    if (!isRecord(value)) continue;
    const { accessKeyId, secretAccessKey, sessionToken, userArn } = value;
    if (
      typeof accessKeyId !== 'string' ||
      typeof secretAccessKey !== 'string' ||
      typeof userArn !== 'string'
    ) {
      throw new Error(
        `Target description: identities.${name} needs accessKeyId, secretAccessKey and userArn`,
      );
    }
    identities[name] = {
      accessKeyId,
      secretAccessKey,
      userArn,
      ...(typeof sessionToken === 'string' ? { sessionToken } : {}),
    };
  }
  return identities;
}

function ownApiKeysById(raw: Record<string, unknown>, app: AppUnderTest): Record<string, string> | undefined {
  const api = isRecord(raw.apis) ? raw.apis[app.stackName] : undefined;
  if (!isRecord(api) || !isRecord(api.apiKeyIds)) return undefined;
  return Object.fromEntries(
    Object.entries(api.apiKeyIds).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
}

/**
 * The local runtime's API key for the app's API: its stack's API's key when the file lists APIs by
 * stack (never another stack's), else `apiKey` (a file written before, of the base-port API).
 */
function ownApiKey(raw: Record<string, unknown>, app: AppUnderTest): string | undefined {
  if (isRecord(raw.apis)) {
    const api = raw.apis[app.stackName];
    return isRecord(api) && Array.isArray(api.apiKeys) && typeof api.apiKeys[0] === 'string'
      ? api.apiKeys[0]
      : undefined;
  }
  return typeof raw.apiKey === 'string' ? raw.apiKey : undefined;
}

export function loadTargetDescription(
  file: string,
  defaults: { kind: TargetDescription['kind']; region?: string; apiKey?: string },
  app: AppUnderTest = ORDERS_APP,
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
  return parseTargetDescription(raw, defaults, app);
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
