/**
 * The embedded local runtime: runs a synthesized cloud assembly (the same Lambda bundles and state
 * machine definitions `cdk deploy` uploads) on local emulators, through the provisioners registered
 * for its resource types (provisioning.ts, provisioners/). It knows no app: an app's own tooling
 * plugs in as an observer. Anything it cannot run is named.
 */
import { rmSync } from 'node:fs';
import { resolve as resolvePath } from 'node:path';
import { inApiPortOrder } from './apigateway/port-order';
import { type CloudAssembly, createStackResolver, readCloudAssembly } from './assembly/cloud-assembly';
import { standardProvisioners } from './provisioners';
import type { ProvisionerRegistry, StackContext, TargetContribution } from './provisioning';
import { RuntimeLifecycle } from './runtime-lifecycle';
import type { LocalRuntime, LocalRuntimeOptions } from './runtime-options';
import { DEFAULT_TARGET_FILE, type LocalTarget, writeTarget } from './target';

export const LOCAL_ACCOUNT_ID = '000000000000';
export const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' } as const;

export async function startLocalRuntime(options: LocalRuntimeOptions): Promise<LocalRuntime> {
  // wall clock: measuring how long start-up took
  const started = Date.now();
  const assembly = readCloudAssembly(resolvePath(options.assemblyDir));
  // Before anything starts: a bad order is refused and changes nothing.
  const stackOrder = inApiPortOrder(
    assembly.stacks.map((stack) => stack.stackName),
    options.apiPortOrder,
  );
  const registry = standardProvisioners();
  refuseDeployment(registry, assembly);
  const lifecycle = new RuntimeLifecycle(options, assembly, LOCAL_ACCOUNT_ID, LOCAL_CREDENTIALS);
  const { context } = lifecycle;
  try {
    const listening = lifecycle.listenContext();
    for (const provisioner of registry.provisioners) await provisioner.listen?.(listening);
    const stacks = assembly.stacks.map((stack) =>
      lifecycle.stackContext(stack, createStackResolver(stack, lifecycle.localEnvironment(stack))),
    );
    const inert = classify(registry, stacks);
    for (const phase of ['provision', 'wire'] as const) {
      for (const stack of stacks)
        for (const provisioner of registry.provisioners) await provisioner[phase]?.(stack);
    }
    for (const provisioner of registry.provisioners) await provisioner.start?.(context);
    const contributions = registry.provisioners.map((provisioner) => provisioner.describe?.() ?? {});
    const described: TargetContribution = Object.assign({}, ...contributions);
    // Each provisioner names the identities its resources need (the operator, queue policies' users).
    const identities = Object.assign({}, ...contributions.map((contribution) => contribution.identities));
    const target: LocalTarget = {
      kind: 'local',
      region: context.region,
      accountId: context.accountId,
      credentials: context.clientConfig().credentials,
      endpoints: context.endpoints.target(),
      ...described,
      ...(Object.keys(identities).length > 0 ? { identities } : {}),
      // The first stack in API port order wins a name two stacks share (ApiUrl...), as its API is `apiUrl`.
      outputs: Object.assign(
        {},
        ...stackOrder
          .map((name) => stacks.find((stack) => stack.stack.stackName === name)?.resolver.outputs())
          .reverse(),
      ),
      stackOutputs: Object.fromEntries(
        stacks.map((stack) => [stack.stack.stackName, stack.resolver.outputs()]),
      ),
      pid: process.pid,
      startedAt: context.clock.date().toISOString(),
    };
    await lifecycle.startObservers(target);
    const targetFile = options.targetFile === undefined ? DEFAULT_TARGET_FILE : options.targetFile;
    if (targetFile !== null) {
      writeTarget(targetFile, target);
      context.onStop(() => rmSync(targetFile, { force: true }));
    }
    for (const { logicalId, type, stackName, reason } of lifecycle.unsupported) {
      context.log(`not run locally: ${logicalId} (${type}) in ${stackName}: ${reason}`);
    }
    if (inert.length > 0) context.log(`not emulated (no effect locally): ${inert.join(', ')}`);
    // wall clock: measuring how long start-up took
    const startupMillis = Date.now() - started;
    const stop = () => lifecycle.stop();
    const { meter } = context;
    return {
      target,
      unsupported: lifecycle.unsupported,
      inert,
      startupMillis,
      stop,
      usage: () => {
        if (!meter) throw new Error('The local runtime meters only when started with metering: true');
        return meter.snapshot();
      },
      iamUsage: () => lifecycle.iamUsage(),
      redeploy: (assemblyDir) => {
        // What the running provisioners keep across the redeploy (every REST API's port).
        const kept = registry.provisioners.map((provisioner) => provisioner.redeployOptions?.() ?? {});
        return redeploy(
          { options: Object.assign({ ...options }, ...kept), assembly, registry, stop },
          assemblyDir,
        );
      },
    };
  } catch (error) {
    await lifecycle.stop();
    throw error;
  }
}

/**
 * Throws what the provisioners refuse of deploying `assembly` (over `previous`), as CloudFormation
 * would fail the deployment: every refusal, before anything starts or stops.
 */
function refuseDeployment(
  registry: ProvisionerRegistry,
  assembly: CloudAssembly,
  previous?: CloudAssembly,
): void {
  const refusals = registry.provisioners.flatMap(
    (provisioner) => provisioner.refusals?.(assembly, previous) ?? [],
  );
  if (refusals.length === 0) return;
  const what = previous === undefined ? 'start' : 'redeploy';
  throw new Error(
    `${what} refused, as AWS would fail this deployment (CloudFormation rolls it back)${previous === undefined ? '' : '; the running app is left as it was'}:\n  ${refusals.join('\n  ')}`,
  );
}

/**
 * See LocalRuntime.redeploy. The new assembly is read and judged (refuseDeployment) before anything
 * stops, so an assembly that cannot be read, or whose deployment AWS would refuse, leaves the
 * running app as it was.
 */
async function redeploy(
  running: {
    /** The running runtime's options with what its provisioners keep (redeployOptions). */
    readonly options: LocalRuntimeOptions;
    readonly assembly: CloudAssembly;
    readonly registry: ProvisionerRegistry;
    readonly stop: () => Promise<void>;
  },
  assemblyDir: string,
): Promise<LocalRuntime> {
  const { options } = running;
  if (options.dataDir === undefined) {
    throw new Error(
      'redeploy keeps the data of the running app: start the runtime with a data directory (dataDir)',
    );
  }
  const next = readCloudAssembly(resolvePath(assemblyDir));
  refuseDeployment(running.registry, next, running.assembly);
  const log = options.log ?? ((line: string) => console.log(line));
  await running.stop();
  for (const removed of removedResources(running.assembly, next)) {
    log(
      `redeploy: ${removed} is not in the new assembly; its local data, if any, stays in ${options.dataDir}`,
    );
  }
  log(
    'redeploy: Step Functions executions and invocations in progress did not survive (on AWS a deployment leaves running executions alone); the app recovers their work',
  );
  return startLocalRuntime({ ...options, assemblyDir: next.directory });
}

/** `<stack>/<logicalId> (<type>)` of each resource of `before` that `after` no longer has. */
function removedResources(before: CloudAssembly, after: CloudAssembly): string[] {
  const kept = new Set(
    after.stacks.flatMap((stack) =>
      Object.keys(stack.template.Resources ?? {}).map((logicalId) => `${stack.stackName}/${logicalId}`),
    ),
  );
  return before.stacks.flatMap((stack) =>
    Object.entries(stack.template.Resources ?? {})
      .filter(([logicalId]) => !kept.has(`${stack.stackName}/${logicalId}`))
      .map(([logicalId, resource]) => `${stack.stackName}/${logicalId} (${resource.Type})`),
  );
}

/**
 * What the registry says of each created resource: inert types are collected (listed once), types
 * that do not run are named. Provisioners name what they cannot run of the rest.
 */
function classify(registry: ProvisionerRegistry, stacks: readonly StackContext[]): string[] {
  const inert = new Set<string>();
  for (const stack of stacks) {
    for (const [logicalId, resource] of Object.entries(stack.stack.template.Resources ?? {})) {
      if (!stack.resolver.isCreated(logicalId)) continue;
      const handling = registry.handling(resource.Type);
      if (handling.kind === 'inert') inert.add(resource.Type);
      if (handling.kind === 'not-run') stack.named(logicalId, resource.Type, handling.reason);
    }
  }
  return [...inert].sort();
}
