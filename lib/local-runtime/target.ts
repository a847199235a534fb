/**
 * The target description file of a running local runtime (`.local/target.json`): where its API and
 * emulators listen and the stack outputs resolved locally (same keys as the CfnOutputs), so tests
 * and tools (bin/orders.ts, the acceptance suite) reach it without knowing how it was started.
 */
import { readFileSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import type { LocalIdentity } from './iam/identities';
import { writePrivateFile } from './private-files';

export type LocalServiceName = 'dynamodb' | 'sqs' | 'sfn' | 'events' | 'sns' | 'cloudwatch';

export interface LocalApi {
  /** URL of the API's first stage, ending with '/'. */
  readonly url: string;
  /** API key values this API accepts (the keys its stack declares). */
  readonly apiKeys: readonly string[];
  /** The same keys by id (what `Ref` of each ApiKey resolves to, e.g. in an ApiKeyId output). */
  readonly apiKeyIds?: Readonly<Record<string, string>>;
}

export interface LocalTarget {
  readonly kind: 'local';
  readonly region: string;
  readonly accountId: string;
  /** Credentials the emulators accept (any value works; these are what the functions use). */
  readonly credentials: { readonly accessKeyId: string; readonly secretAccessKey: string };
  readonly endpoints: Readonly<Record<LocalServiceName, string>>;
  /**
   * URL of the first stage of the base-port API: the REST API on the runtime's port (the first of
   * LocalRuntimeOptions.apiPortOrder, else of the assembly's first stack; with port 0, on a free
   * port). For `npm start` that is the orders API (bin/app-api-port-order.ts). Absent when no API
   * takes that port. Another stack's API is under `apis`, by stack name.
   */
  readonly apiUrl?: string;
  /** The first API key of the base-port API's stack (`apiUrl`'s), to send as x-api-key. */
  readonly apiKey?: string;
  /**
   * Every stack's REST API (its first one with a stage), by stack name, in API port order: the
   * base-port API's stack first.
   */
  readonly apis?: Readonly<Record<string, LocalApi>>;
  /**
   * Local IAM identities, by name (= access key id): `operator`, and every IAM user of the local
   * account a queue policy names. Sign requests to AWS_IAM methods (service execute-api) or to SQS
   * (service sqs) with SigV4 in this region using these credentials. The runtime verifies the
   * signatures; it evaluates no identity policy, only the explicit denies of queue policies.
   */
  readonly identities?: Readonly<Record<string, LocalIdentity>>;
  /**
   * Stack outputs, resolved to local names and URLs, merged across stacks: where two stacks have an
   * output of the same name (ApiUrl, AlertInboxQueueUrl, ...) the first stack's in API port order
   * wins, like `apiUrl`.
   * Tools that mean one stack read `stackOutputs` (see outputsOfStack).
   */
  readonly outputs: Readonly<Record<string, string>>;
  /** Each stack's own outputs, by stack name (a file written before they were listed lacks them). */
  readonly stackOutputs: Readonly<Record<string, Readonly<Record<string, string>>>>;
  /** Process id of the runtime that wrote the file. */
  readonly pid: number;
  readonly startedAt: string;
}

export const DEFAULT_TARGET_FILE = '.local/target.json';

/**
 * Environment variable naming the target file where no `--target` does: the one `npm start` writes
 * and the local CLIs (npm run orders, npm run deliveries) read, e.g. for a second runtime beside
 * the first. A relative path is taken from the working directory (under `npm run`, the project's).
 */
export const TARGET_FILE_ENV = 'LOCAL_TARGET';

/** The target file when no `--target` names one: $LOCAL_TARGET, else DEFAULT_TARGET_FILE under `projectRoot`. */
export function defaultTargetFile(
  environment: Readonly<Record<string, string | undefined>>,
  paths: { readonly cwd: string; readonly projectRoot: string },
): string {
  const named = environment[TARGET_FILE_ENV];
  return named ? resolve(paths.cwd, named) : resolve(paths.projectRoot, DEFAULT_TARGET_FILE);
}

/**
 * Writes the target readable by the developer only (mode 0600, ./private-files.ts): it holds the
 * APIs' keys and the local identities' secrets. A file an earlier start left with a wider mode is
 * narrowed too. Its folder is made 0700 when created, and narrowed when it is the runtime's own
 * (`.local`, DEFAULT_TARGET_FILE's); a folder the developer named with `--target` is left as it is.
 */
export function writeTarget(file: string, target: LocalTarget): void {
  writePrivateFile(file, `${JSON.stringify(target, null, 2)}\n`, {
    narrowFolder: basename(dirname(file)) === basename(dirname(DEFAULT_TARGET_FILE)),
  });
}

export function readTarget(file: string): LocalTarget {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(
      `Cannot read the local target ${file} (${(error as Error).message}). Is the local runtime running (npm start)?`,
    );
  }
  const target = raw as Partial<LocalTarget>;
  if (target.kind !== 'local' || !target.endpoints?.dynamodb || typeof target.outputs !== 'object') {
    throw new Error(`${file} is not a local runtime target description (missing kind, endpoints or outputs)`);
  }
  return target as LocalTarget;
}

/**
 * One stack's outputs and the API key its API takes: the stack's own when the target lists them,
 * else the merged outputs and the base-port API's key (a target written before stacks were listed).
 * A target that lists APIs by stack gives no other stack's key for a stack whose API takes none.
 */
export function outputsOfStack(
  target: LocalTarget,
  stackName: string,
): { readonly outputs: Readonly<Record<string, string>>; readonly apiKey?: string } {
  const outputs = target.stackOutputs?.[stackName] ?? target.outputs;
  const apiKey = target.apis ? target.apis[stackName]?.apiKeys[0] : target.apiKey;
  return { outputs, ...(apiKey === undefined ? {} : { apiKey }) };
}
