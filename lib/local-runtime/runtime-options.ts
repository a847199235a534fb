/**
 * What a caller gives the local runtime and gets back (kept apart from runtime.ts so provisioners
 * can read the options without depending on the composition that runs them).
 */
import type { RuntimeClock } from './clock';
import type { FaultHooks } from './fault-hooks';
import type { IamMode } from './iam/authorizer';
import type { IamUsageRecord } from './iam/usage-record';
import type { RuntimeUsage } from './metering';
import type { LocalServiceName, LocalTarget } from './target';

export interface LocalRuntimeOptions {
  /** The cloud assembly directory (cdk.out) to run. */
  readonly assemblyDir: string;
  /**
   * Port of the first REST API in API port order (apiPortOrder); the next take port+1, port+2... (a
   * free port, logged, when one is taken). @default 3000 (0: every API on a free port)
   */
  readonly port?: number;
  /**
   * Stack names in the order their REST APIs take ports: the first named stack's API on `port`,
   * the next on `port + 1`... A named stack the assembly lacks leaves its port free, so each named
   * stack's port depends on its name alone; stacks not named follow. An order naming none of the
   * assembly's stacks (another app's) is ignored. The API on `port` (the first
   * of this order; with port 0, on a free port) is the target's `apiUrl` and `apiKey`, and the
   * target lists `apis` and merges `outputs` in this order.
   * A name given twice or an empty name is refused. The runtime knows no app: the app's own tooling
   * names its order. @default - the assembly's order of stacks
   */
  readonly apiPortOrder?: readonly string[];
  /**
   * The port of a REST API, by `<stack name>/<logical id>`, over `port` and `apiPortOrder` (a taken
   * one falls back to a free port as they do): what a redeploy starts the next runtime with, so
   * every API keeps its port. @default - none
   */
  readonly restApiPorts?: Readonly<Record<string, number>>;
  /** Persist what can be persisted here (DynamoDB tables, SQS queues and messages, generated API keys). @default - in memory */
  readonly dataDir?: string;
  /** Receives the runtime's own log lines. @default console.log */
  readonly log?: (line: string) => void;
  /** Where to write the target description. @default '.local/target.json'; null writes none */
  readonly targetFile?: string | null;
  /** Append each function's stdout/stderr to `<dir>/<function name>.log`. @default - discarded */
  readonly functionLogDir?: string;
  /** @default 'us-east-1' */
  readonly region?: string;
  /**
   * The clock every timer of the runtime reads (clock/): a WallClock runs as AWS does; a
   * VirtualClock moves only when the system is quiet, then jumps to the next due timer. A redeploy
   * keeps it. @default - a WallClock
   */
  readonly clock?: RuntimeClock;
  /** Sandboxes per function without reserved concurrency. @default 4 */
  readonly defaultFunctionConcurrency?: number;
  /** Delays before retrying failed asynchronous invocations. @default [60000, 120000] (Lambda's) */
  readonly asyncRetryDelaysMillis?: readonly number[];
  /**
   * Fault hooks for resilience testing (see fault-hooks.ts): interceptors, sandbox kills, duplicate
   * deliveries, function copies, clock offsets. @default - none (the runtime behaves as without them)
   */
  readonly faults?: FaultHooks;
  /**
   * Tools that watch the running system (e.g. an app's live log), started once it is ready and
   * stopped first when it stops. The runtime itself knows no app. @default - none
   */
  readonly observers?: readonly LocalRuntimeObserver[];
  /**
   * Count what AWS bills (metering.ts), read with `usage()`. DynamoDB's request units need a proxy
   * in front of DynamoDB Local for the functions and Step Functions (dynamodb/capacity-meter.ts),
   * one more local hop per call, so metering is asked for, not always on. @default false
   */
  readonly metering?: boolean;
  /**
   * IAM on every request to a local AWS service (lib/local-runtime/iam): `enforce` refuses what AWS
   * would refuse, with AWS's access-denied errors; `report` logs each would-be denial once and
   * allows it. @default 'enforce'
   */
  readonly iam?: IamMode;
  /**
   * Local IAM users the composition gives identity policies: by user name (= access key id), the
   * names (ManagedPolicyName) of the templates' AWS::IAM::ManagedPolicy resources attached to it,
   * e.g. `{ operator: { managedPolicyNames: ['Orders-OperatorAccess'] } }`. A user the runtime
   * makes on its own (a client a queue policy names) has no identity policy. @default - none
   */
  readonly users?: Readonly<Record<string, LocalUserSpec>>;
  /**
   * Where the runtime records IAM (iam/usage-record.ts): each denial as it happens
   * (`denials.jsonl`, emptied at start) and, when it stops, what was granted and used
   * (`usage.json`, for `npm run iam:report`). @default - not recorded
   */
  readonly iamRecordDir?: string;
}

/** A local IAM user's identity policies. */
/** The region a runtime plays when its options name none. */
export const DEFAULT_LOCAL_REGION = 'us-east-1';

export interface LocalUserSpec {
  /** ManagedPolicyName of each AWS::IAM::ManagedPolicy of the templates to attach. @default - none */
  readonly managedPolicyNames?: readonly string[];
}

export interface LocalRuntime {
  readonly target: LocalTarget;
  /** Resources the runtime does not run, with the reason (also printed at start). */
  readonly unsupported: readonly UnsupportedResource[];
  /** Types listed as "not emulated (no effect locally)". */
  readonly inert: readonly string[];
  /** Milliseconds from the call to ready. */
  readonly startupMillis: number;
  /** Stops every server, poller, timer, worker and observer; resolves when all ports are released. */
  stop(): Promise<void>;
  /**
   * What the runtime counted since it started, per resource (metering.ts); diff two snapshots with
   * `usageSince`. Throws unless the runtime was started with `metering: true`.
   */
  usage(): RuntimeUsage;
  /** What the account grants and what was used and denied since start (iam/usage-record.ts). */
  iamUsage(): IamUsageRecord;
  /**
   * Replaces the deployed app with another cloud assembly, keeping the data (a local `cdk deploy`
   * of a new version): this runtime stops, and a new one starts on `assemblyDir` with the same
   * options and data directory (DynamoDB Local's tables, the SQS journal, API keys, identities), so
   * tables and queues the new template still has keep their items and messages, and its new ones
   * are created. Every REST API keeps its port (even one that was given a free port); the other
   * endpoints may move (the target file is rewritten). Requires `dataDir`. What does not survive, unlike on AWS: Step Functions
   * executions (the engine is in memory) and invocations in progress; their orders are what the
   * app's own recovery (its supervisor) is for. Resources the new template no longer has are
   * named in the log and their data is left in the data directory, not deleted. A deployment AWS
   * would refuse (a key moved to another usage plan of its stage: CloudFormation creates the new
   * association before it deletes the old, and API Gateway refuses a key two plans of a stage) is
   * refused before anything stops, leaving this runtime running, as CloudFormation rolls back.
   * @returns the running runtime, which replaces this one (this one is stopped)
   */
  redeploy(assemblyDir: string): Promise<LocalRuntime>;
}

export interface UnsupportedResource {
  readonly stackName: string;
  readonly logicalId: string;
  readonly type: string;
  readonly reason: string;
}

/** What an observer is started with. */
export interface ObservedRuntime {
  /** Endpoints, credentials, region and the stack outputs resolved locally. */
  readonly target: LocalTarget;
  /** SDK client settings for one local service (a fresh credentials object each call). */
  sdkConfig(service: LocalServiceName): {
    region: string;
    endpoint: string;
    credentials: { accessKeyId: string; secretAccessKey: string };
  };
  /** The runtime's log. */
  log(line: string): void;
}

export interface LocalRuntimeObserver {
  /** Names the observer when it fails to start or stop. */
  readonly name: string;
  /** Starts observing; what it returns is stopped before the runtime stops its own parts. */
  start(runtime: ObservedRuntime): Promise<{ stop(): Promise<void> }>;
}
