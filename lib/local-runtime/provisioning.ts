/**
 * How the local runtime turns a cloud assembly into running things: provisioners, each registered
 * for the CloudFormation resource types it handles, taken through the same phases in order:
 *
 *   listen     start the servers and backends whose URLs the template's resolution needs
 *              (emulators, front doors such as REST APIs and function URLs), announce endpoints
 *   provision  per stack: create what the stack declares (tables, queues, functions, topics...)
 *   wire       per stack: connect resources (event sources, subscriptions, rules, routes)
 *   start      begin work (pollers, schedules), once every stack is wired
 *
 * Before any phase, and before a redeploy stops the running app, each provisioner may refuse the
 * deployment as AWS would (refuseDeployment): CloudFormation would fail it and roll back.
 *
 * The registry is the one list of what runs, what has no local effect (inert) and what is named
 * as not run with its reason; a type no provisioner claims is named as not emulated.
 */

import type { AssemblyStack, CfnResource, CloudAssembly, StackResolver } from './assembly/cloud-assembly';
import type { RuntimeClock } from './clock';
import type { SigningCredentials } from './iam/credential-registry';
import type { LocalIdentities, LocalIdentity } from './iam/identities';
import type { RuntimeIam } from './iam/runtime-iam';
import type { RuntimeMeter } from './metering';
import type { LocalRuntimeOptions } from './runtime-options';
import type { LocalApi, LocalServiceName } from './target';

export interface Stoppable {
  stop(): Promise<void>;
}

/**
 * When something stops: what produces work first (servers, pollers, schedules), then the functions,
 * then what they talk to.
 */
export type StopTier = 'producer' | 'functions' | 'backend';

export interface ResourceTypes {
  /** Types the provisioner runs (a resource may still be named when one of its features is missing). */
  readonly runs?: readonly string[];
  /** Types with no local effect, by exact type or `Prefix::*`, with why (listed once at start). */
  readonly inert?: Readonly<Record<string, string>>;
  /** Types with an effect on AWS that are not run locally, with the reason named at start. */
  readonly notRun?: Readonly<Record<string, string>>;
}

export interface Provisioner {
  /** Names the provisioner in errors and in the registry's description. */
  readonly name: string;
  readonly resourceTypes: ResourceTypes;
  /**
   * What AWS would refuse of deploying `assembly` (over `previous`, the running app's, on a
   * redeploy), one line each, judged on the templates before anything starts or stops: the start
   * (or the redeploy, leaving the running app as it was) fails naming them. @default - nothing
   */
  refusals?(assembly: CloudAssembly, previous?: CloudAssembly): readonly string[];
  listen?(context: ListenContext): Promise<void>;
  provision?(context: StackContext): Promise<void>;
  wire?(context: StackContext): Promise<void>;
  start?(context: RuntimeContext): Promise<void>;
  /** What the provisioner adds to the target description, once every phase ran. */
  describe?(): TargetContribution;
  /**
   * Options a redeploy starts the next runtime with, so what clients know of this one stays where
   * it is (the REST APIs' ports). @default - none
   */
  redeployOptions?(): Partial<LocalRuntimeOptions>;
}

export interface TargetContribution {
  /** URL of the first stage of the REST API on the runtime's port (see LocalTarget.apiUrl). */
  readonly apiUrl?: string;
  /** A key of that API's stack (see LocalTarget.apiKey). */
  readonly apiKey?: string;
  /** Every stack's REST API, by stack name, in API port order. */
  readonly apis?: Readonly<Record<string, LocalApi>>;
  /**
   * Local IAM identities a client may sign with (AWS_IAM methods, SQS requests), by name; the
   * runtime merges every provisioner's.
   */
  readonly identities?: Readonly<Record<string, LocalIdentity>>;
}

/** A delivery to the resource an ARN names (queue, topic, function, state machine). */
export type Delivery = (arn: string, message: string, options: DeliveryOptions) => Promise<void>;

/**
 * Who makes a delivery, for IAM: a service acting for a resource (SNS for a topic, EventBridge for
 * a rule, CloudWatch for an alarm), which the target's resource policy must allow with the resource
 * as aws:SourceArn; or a session of a role (an EventBridge target's RoleArn, a pipe's role).
 */
export type DeliveryPrincipal =
  | { readonly kind: 'service'; readonly service: string; readonly sourceArn: string }
  | { readonly kind: 'role'; readonly roleArn: string };

export interface DeliveryOptions {
  /**
   * Who delivers, authorized by the target's service as AWS would. @default - the runtime itself
   * (its own work, e.g. a test's or a fault hook's message): not authorized
   */
  readonly deliveredAs?: DeliveryPrincipal;
  /**
   * The service delivering, for metering (who caused a request): e.g. `EventBridge`,
   * `CloudWatch alarm`, or `SNS <- CloudWatch alarm` for a topic's delivery of an alarm's message
   * (deliveredVia). @default - unnamed
   */
  readonly deliveredBy?: string;
  /** For SNS topics: the message's Subject (CloudWatch alarm notifications carry one). */
  readonly subject?: string;
  /** For FIFO queues (EventBridge SqsParameters.MessageGroupId, a pipe's SqsQueueParameters). */
  readonly messageGroupId?: string;
  /** For FIFO queues without content-based deduplication (a pipe's SqsQueueParameters). */
  readonly messageDeduplicationId?: string;
  /**
   * Message attributes for a queue (SNS raw message delivery, a dead-letter queue's error
   * attributes); binary values in base64.
   */
  readonly messageAttributes?: Readonly<
    Record<
      string,
      { readonly DataType: string; readonly StringValue?: string; readonly BinaryValue?: string }
    >
  >;
}

/** What every phase sees. */
export interface RuntimeContext {
  readonly region: string;
  readonly accountId: string;
  readonly options: LocalRuntimeOptions;
  readonly assembly: CloudAssembly;
  /** The one clock every timer of the runtime reads (options.clock, or the wall clock). */
  readonly clock: RuntimeClock;
  /** The runtime's own log. */
  log(line: string): void;
  /** Logs something that went wrong without stopping the runtime. */
  problem(message: string): void;
  /**
   * The runtime's local IAM identities (one set, kept per data directory): who signs a request to
   * an AWS_IAM method or to SQS. Callers with other credentials are the runtime's default principal.
   */
  readonly identities: LocalIdentities;
  /**
   * The local account's IAM (iam/): roles, users and their policies, every credential and its
   * principal, the authorizer every service asks, the KMS keys' policies.
   */
  readonly iam: RuntimeIam;
  /**
   * SDK client settings for the local emulators, as the account's root (the developer who deploys;
   * a fresh credentials object each call): for the runtime's own work, never for the app's calls,
   * which carry their resource's role (iam.credentials.roleSession).
   */
  clientConfig(): { region: string; credentials: { accessKeyId: string; secretAccessKey: string } };
  /** Stops `item` with the runtime, in its tier. */
  stopWith(item: Stoppable, tier: StopTier): void;
  /** Runs after everything stopped (clients, temporary files). */
  onStop(cleanup: () => void): void;
  readonly endpoints: ServiceEndpoints;
  readonly deliveries: Deliveries;
  /** Counts what AWS bills, when the runtime meters (options.metering); absent otherwise. */
  readonly meter?: RuntimeMeter;
}

export interface ListenContext extends RuntimeContext {
  /** Resources of a type in every stack, as written (the template is resolved once servers listen). */
  resourcesOfType(
    type: string,
  ): ReadonlyArray<{ stack: AssemblyStack; logicalId: string; resource: CfnResource }>;
  /** The URL a resource is reached at (REST API base URL, function URL), for Ref/GetAtt and outputs. */
  publishUrl(stack: AssemblyStack, logicalId: string, url: string): void;
  /**
   * Where `Fn::GetAtt <table>.StreamArn` comes from: the backend names a table's stream only once
   * the table exists, so the resolver asks this lookup when a template reads the attribute.
   */
  publishTableStreams(lookup: (stackName: string, logicalId: string) => string): void;
}

export interface StackContext extends RuntimeContext {
  readonly stack: AssemblyStack;
  readonly resolver: StackResolver;
  /**
   * The credentials the stack's resources are created and changed with, as CloudFormation does: a
   * session of the stack's execution role, or the root's when it names none (iam/deploying-role.ts).
   */
  readonly deployer: SigningCredentials;
  /** Created resources (Condition true) of a type in this stack. */
  ofType(type: string): ReadonlyArray<readonly [logicalId: string, resource: CfnResource]>;
  /** Names a resource (or a feature of it) that is not run locally, with the reason. */
  named(logicalId: string, type: string, reason: string): void;
}

/** SDK service ids (as in AWS_ENDPOINT_URL_<ID>) of the services described in the target file. */
const TARGET_SERVICES: Readonly<Record<LocalServiceName, string>> = {
  dynamodb: 'DYNAMODB',
  sqs: 'SQS',
  sfn: 'SFN',
  events: 'EVENTBRIDGE',
  sns: 'SNS',
  cloudwatch: 'CLOUDWATCH',
};

/** Where each local service listens, for the functions' environment and the target description. */
export class ServiceEndpoints {
  private readonly announced = new Map<
    string,
    { endpoint: string; forFunctions: string; callerScoped: boolean }
  >();
  private fallback: string | undefined;

  /**
   * A service listens at `endpoint`; functions reach it at `forFunctions` (a fault proxy or the
   * capacity meter in front of it, or the endpoint itself). `callerScoped`: what functions reach
   * tells callers apart by the first path segment (the DynamoDB capacity meter), so each function's
   * variable names it: `<forFunctions>/<function name>`.
   */
  announce(
    sdkServiceId: string,
    endpoint: string,
    forFunctions = endpoint,
    options: { readonly callerScoped?: boolean } = {},
  ): void {
    if (this.announced.has(sdkServiceId)) throw new Error(`Service ${sdkServiceId} is announced twice`);
    this.announced.set(sdkServiceId, { endpoint, forFunctions, callerScoped: options.callerScoped ?? false });
  }

  /**
   * Functions reach an announced service at `forFunctions` from now on (a fault proxy in front of
   * it); callers of endpointOf and the target description still get the service itself.
   */
  redirectForFunctions(sdkServiceId: string, forFunctions: string): void {
    const announced = this.announced.get(sdkServiceId);
    if (!announced) throw new Error(`Service ${sdkServiceId} is not announced`);
    this.announced.set(sdkServiceId, { ...announced, forFunctions });
  }

  /** The endpoint of every service without one of its own (it answers that it is not emulated). */
  announceFallback(endpoint: string): void {
    this.fallback = endpoint;
  }

  /**
   * Where functions reach an announced service now (no fallback): what a proxy put in front of them
   * forwards to.
   */
  functionEndpoint(sdkServiceId: string): string | undefined {
    return this.announced.get(sdkServiceId)?.forFunctions;
  }

  endpointOf(sdkServiceId: string): string | undefined {
    return this.announced.get(sdkServiceId)?.endpoint ?? this.fallback;
  }

  /**
   * AWS_ENDPOINT_URL and AWS_ENDPOINT_URL_<SERVICE> of one function: no function ever reaches a real
   * account; a caller-scoped service's URL names the function.
   */
  functionEnvironment(functionName: string): Record<string, string> {
    const environment: Record<string, string> = this.fallback ? { AWS_ENDPOINT_URL: this.fallback } : {};
    for (const [id, { forFunctions, callerScoped }] of this.announced) {
      environment[`AWS_ENDPOINT_URL_${id}`] = callerScoped
        ? `${forFunctions}/${encodeURIComponent(functionName)}`
        : forFunctions;
    }
    return environment;
  }

  target(): Record<LocalServiceName, string> {
    const entries = Object.entries(TARGET_SERVICES).map(([name, id]) => {
      const endpoint = this.endpointOf(id);
      if (!endpoint) throw new Error(`No local endpoint for ${id}`);
      return [name, endpoint];
    });
    return Object.fromEntries(entries) as Record<LocalServiceName, string>;
  }
}

/** Deliveries to ARNs by service (the third field of the ARN), for EventBridge targets and SNS. */
export class Deliveries {
  private readonly byService = new Map<string, Delivery>();

  register(service: string, delivery: Delivery): void {
    this.byService.set(service, delivery);
  }

  canDeliver(arn: string): boolean {
    return this.byService.has(serviceOf(arn));
  }

  deliver(arn: string, message: string, options: DeliveryOptions = {}): Promise<void> {
    const delivery = this.byService.get(serviceOf(arn));
    if (!delivery) {
      return Promise.reject(new Error(`target ${arn} is not a kind of target the local runtime delivers to`));
    }
    return delivery(arn, message, options);
  }
}

function serviceOf(arn: string): string {
  return arn.split(':')[2] ?? '';
}

export type TypeHandling =
  | { readonly kind: 'run'; readonly provisioner: string }
  | { readonly kind: 'inert'; readonly provisioner: string; readonly reason: string }
  | { readonly kind: 'not-run'; readonly provisioner?: string; readonly reason: string };

export const NOT_EMULATED = 'resource type not emulated';

function matches(pattern: string, type: string): boolean {
  return pattern.endsWith('::*') ? type.startsWith(pattern.slice(0, -1)) : pattern === type;
}

/** The provisioners, in phase order, and what each resource type gets from them. */
export class ProvisionerRegistry {
  private readonly exact = new Map<string, TypeHandling>();
  private readonly patterns: Array<{ pattern: string; handling: TypeHandling }> = [];

  constructor(readonly provisioners: readonly Provisioner[]) {
    for (const { name, resourceTypes } of provisioners) {
      const claim = (type: string, handling: TypeHandling) => {
        const previous =
          this.exact.get(type) ?? this.patterns.find((entry) => entry.pattern === type)?.handling;
        if (previous) {
          throw new Error(
            `${type} is claimed by ${previous.provisioner} and ${name}: one provisioner per type`,
          );
        }
        if (type.endsWith('::*')) this.patterns.push({ pattern: type, handling });
        else this.exact.set(type, handling);
      };
      for (const type of resourceTypes.runs ?? []) claim(type, { kind: 'run', provisioner: name });
      for (const [type, reason] of Object.entries(resourceTypes.inert ?? {})) {
        claim(type, { kind: 'inert', provisioner: name, reason });
      }
      for (const [type, reason] of Object.entries(resourceTypes.notRun ?? {})) {
        claim(type, { kind: 'not-run', provisioner: name, reason });
      }
    }
  }

  handling(type: string): TypeHandling {
    return (
      this.exact.get(type) ??
      this.patterns.find((entry) => matches(entry.pattern, type))?.handling ?? {
        kind: 'not-run',
        reason: NOT_EMULATED,
      }
    );
  }

  /** Every type, or `Prefix::*` family, the registry knows, with what it gets: for docs and tests. */
  describe(): ReadonlyArray<{ readonly type: string } & TypeHandling> {
    return [
      ...[...this.exact].map(([type, handling]) => ({ type, ...handling })),
      ...this.patterns.map(({ pattern, handling }) => ({ type: pattern, ...handling })),
    ].sort((left, right) => left.type.localeCompare(right.type));
  }

  /** Types the runtime runs. */
  supportedTypes(): string[] {
    return this.describe()
      .filter((entry) => entry.kind === 'run')
      .map((entry) => entry.type);
  }
}
