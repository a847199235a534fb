/**
 * The state one running local runtime shares with its provisioners: the contexts of the phases
 * (provisioning.ts), the endpoints and deliveries they announce, what was named as not run, the
 * observers, and the order in which everything stops.
 */

import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type {
  AssemblyStack,
  CfnResource,
  CloudAssembly,
  LocalEnvironment,
  StackResolver,
} from './assembly/cloud-assembly';
import { WallClock } from './clock';
import { deployingCredentials } from './iam/deploying-role';
import { LocalIdentities } from './iam/identities';
import { createRuntimeIam } from './iam/runtime-iam';
import { IAM_RECORD_FILES, type IamUsageRecord } from './iam/usage-record';
import { RuntimeMeter } from './metering';
import { mintIdsFor } from './minted-ids';
import {
  Deliveries,
  type ListenContext,
  type RuntimeContext,
  ServiceEndpoints,
  type StackContext,
  type Stoppable,
  type StopTier,
} from './provisioning';
import { DEFAULT_LOCAL_REGION, type LocalRuntimeOptions, type UnsupportedResource } from './runtime-options';
import type { LocalServiceName, LocalTarget } from './target';

const STOP_ORDER: readonly StopTier[] = ['producer', 'functions', 'backend'];

export class RuntimeLifecycle {
  readonly context: RuntimeContext;
  /** Resources (or features of them) not run locally, in the order they were named. */
  readonly unsupported: UnsupportedResource[] = [];
  private readonly tiers = new Map<StopTier, Stoppable[]>(STOP_ORDER.map((tier) => [tier, []]));
  private readonly observers: Stoppable[] = [];
  private readonly cleanups: Array<() => void> = [];
  private readonly publishedUrls = new Map<string, string>();
  private tableStreamArn: ((stackName: string, logicalId: string) => string) | undefined;
  private readonly startedAt: string;
  private stopped = false;

  constructor(
    private readonly options: LocalRuntimeOptions,
    private readonly assembly: CloudAssembly,
    accountId: string,
    credentials: { readonly accessKeyId: string; readonly secretAccessKey: string },
  ) {
    const log = options.log ?? ((line: string) => console.log(line));
    const region = options.region ?? DEFAULT_LOCAL_REGION;
    const clock = options.clock ?? new WallClock();
    mintIdsFor(clock);
    this.startedAt = clock.date().toISOString();
    const identities = new LocalIdentities(options.dataDir, accountId);
    const recordDir = options.iamRecordDir;
    if (recordDir) {
      mkdirSync(recordDir, { recursive: true });
      writeFileSync(join(recordDir, IAM_RECORD_FILES.denials), '');
    }
    this.context = {
      region,
      accountId,
      options,
      assembly,
      clock,
      log,
      problem: (message) => log(`! ${message}`),
      identities,
      iam: createRuntimeIam({
        accountId,
        region,
        mode: options.iam ?? 'enforce',
        log,
        root: credentials,
        users: identities,
        clock,
        ...(recordDir
          ? {
              onDenied: (record) =>
                appendFileSync(join(recordDir, IAM_RECORD_FILES.denials), `${JSON.stringify(record)}\n`),
            }
          : {}),
      }),
      // A fresh credentials object per client: the SDK annotates the object it is given.
      clientConfig: () => ({ region, credentials: { ...credentials } }),
      stopWith: (item, tier) => this.tiers.get(tier)?.push(item),
      onStop: (cleanup) => this.cleanups.push(cleanup),
      endpoints: new ServiceEndpoints(),
      deliveries: new Deliveries(),
      ...(options.metering ? { meter: new RuntimeMeter() } : {}),
    };
  }

  listenContext(): ListenContext {
    return {
      ...this.context,
      resourcesOfType: (type) =>
        this.assembly.stacks.flatMap((stack) =>
          Object.entries(stack.template.Resources ?? {})
            .filter(([, resource]) => resource.Type === type)
            .map(([logicalId, resource]) => ({ stack, logicalId, resource })),
        ),
      publishUrl: (stack, logicalId, url) => this.publishedUrls.set(`${stack.stackName}/${logicalId}`, url),
      publishTableStreams: (lookup) => {
        this.tableStreamArn = lookup;
      },
    };
  }

  /** Where the stack's resources live locally, for its intrinsic resolution. */
  localEnvironment(stack: AssemblyStack): LocalEnvironment {
    const published = (logicalId: string) => {
      const url = this.publishedUrls.get(`${stack.stackName}/${logicalId}`);
      if (!url) throw new Error(`No local server for ${logicalId} in ${stack.stackName}`);
      return url;
    };
    return {
      region: this.context.region,
      accountId: this.context.accountId,
      sqsEndpoint: this.context.endpoints.endpointOf('SQS') ?? '',
      restApiBaseUrl: published,
      functionUrl: published,
      ...(this.tableStreamArn && {
        tableStreamArn: (logicalId: string) => this.tableStreamArn?.(stack.stackName, logicalId) ?? '',
      }),
    };
  }

  stackContext(stack: AssemblyStack, resolver: StackResolver): StackContext {
    const created: Array<readonly [string, CfnResource]> = Object.entries(
      stack.template.Resources ?? {},
    ).filter(([logicalId]) => resolver.isCreated(logicalId));
    return {
      ...this.context,
      stack,
      resolver,
      deployer: deployingCredentials(this.context.iam, this.context, stack.executionRoleArn),
      ofType: (type) => created.filter(([, resource]) => resource.Type === type),
      named: (logicalId, type, reason) =>
        this.unsupported.push({ stackName: stack.stackName, logicalId, type, reason }),
    };
  }

  async startObservers(target: LocalTarget): Promise<void> {
    const { region, log } = this.context;
    for (const observer of this.options.observers ?? []) {
      try {
        this.observers.push(
          await observer.start({
            target,
            sdkConfig: (service: LocalServiceName) => ({
              ...this.context.clientConfig(),
              region,
              endpoint: target.endpoints[service],
            }),
            log,
          }),
        );
      } catch (error) {
        throw new Error(`Observer ${observer.name} failed to start: ${(error as Error).message}`);
      }
    }
  }

  /** What the account grants and what was used and denied since start. */
  iamUsage(): IamUsageRecord {
    const { iam } = this.context;
    return {
      mode: iam.authorizer.mode,
      startedAt: this.startedAt,
      grants: iam.account.grants(),
      usage: iam.authorizer.usage.snapshot(),
    };
  }

  /** Stops observers, then each tier in order; resolves when every port is released. */
  async stop(): Promise<void> {
    const recordDir = this.options.iamRecordDir;
    if (recordDir && !this.stopped) {
      writeFileSync(
        join(recordDir, IAM_RECORD_FILES.usage),
        `${JSON.stringify({ ...this.iamUsage(), stoppedAt: this.context.clock.date().toISOString() })}\n`,
      );
    }
    this.stopped = true;
    const stopEach = (items: readonly Stoppable[]) =>
      Promise.all(
        items.map((item) =>
          item.stop().catch((error: Error) => this.context.problem(`while stopping: ${error.message}`)),
        ),
      );
    await stopEach(this.observers.splice(0));
    for (const tier of STOP_ORDER) await stopEach(this.tiers.get(tier)?.splice(0) ?? []);
    for (const cleanup of this.cleanups.splice(0)) cleanup();
  }
}
