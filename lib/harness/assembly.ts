/**
 * The cloud assembly the campaign runs: synthesized with the local profile (the same `cdk synth`
 * path as a deployment), read for the facts the campaign needs (which function plays which role,
 * the workflow timings), and, for the checker's own tests, copied with a deliberately broken
 * bundled asset.
 */
import { cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ChoreographyEnvKey } from '../../lambdas/choreography/contracts';
import { FakesEnvKey } from '../../lambdas/fakes/contracts';
import {
  type AdmissionSettings,
  EnvKey,
  parseAdmissionSettings,
  parseRetryBudget,
  parseWorkflowTimings,
  RoleServiceName,
  type WorkflowTimings,
} from '../../lambdas/scheduler-agent-supervisor/contracts';
import { PowertoolsEnvKey } from '../../lambdas/shared/env';
import { synthesizeLocalAssembly } from '../local-runtime';

export { PROJECT_ROOT } from '../local-runtime';

export type FunctionRole = 'agent' | 'supervisor' | 'starter' | 'remote-service' | 'other';

export interface AssemblyFunction {
  readonly logicalId: string;
  readonly stackName: string;
  readonly role: FunctionRole;
  /** Absolute directory of the bundled code. */
  readonly assetDir: string;
  readonly environment: Readonly<Record<string, string>>;
  readonly timeoutSeconds: number;
}

export interface AssemblyFacts {
  readonly assemblyDir: string;
  readonly timings: WorkflowTimings;
  readonly functions: readonly AssemblyFunction[];
  readonly supervisor: AssemblyFunction;
  readonly starter: AssemblyFunction;
  readonly agents: readonly AssemblyFunction[];
  /** The admission limit and shards the assembly was synthesized with (ADMISSION_SETTINGS). */
  readonly admission: AdmissionSettings;
  /** The deployment's retry budget (the agents' RETRY_BUDGET): what a record without its own is held to. */
  readonly retryBudget: number;
}

/**
 * CDK context keys of the orders wing's overrides (SasContextKey, lib/scheduler-agent-supervisor/
 * sas-context-key.ts; the harness reaches the wing only through what it deploys).
 */
const ADMISSION_LIMIT_CONTEXT = 'admissionLimit';
const TIMINGS_CONTEXT = 'timings';

export interface SynthesizeLocalOptions {
  /** `-c admissionLimit=N`: overrides the profile's admission limit. @default - the profile's */
  readonly admissionLimit?: number;
  /** `-c timings=<profile>`: that profile's workflow timings (`default`: the deployed ones). @default - the local profile's */
  readonly timings?: string;
  /** Other `-c key=value`. @default - none */
  readonly context?: Readonly<Record<string, string>>;
}

/** `cdk synth -c profile=local -o DIR`, as the local runtime's own synthesis does it, with `options`. */
export function synthesizeLocal(outputDir: string, options: SynthesizeLocalOptions = {}): void {
  synthesizeLocalAssembly(outputDir, {
    context: {
      ...options.context,
      ...(options.admissionLimit !== undefined && {
        [ADMISSION_LIMIT_CONTEXT]: String(options.admissionLimit),
      }),
      ...(options.timings !== undefined && { [TIMINGS_CONTEXT]: options.timings }),
    },
  });
}

/**
 * A function's role, from the environment the constructs give it (the contract between lib/ and
 * the handlers), not from construct ids that may be renamed.
 */
export function roleOf(environment: Readonly<Record<string, string>>): FunctionRole {
  const has = (key: string) => key in environment;
  if (has(EnvKey.StepName)) return 'agent';
  if (has(FakesEnvKey.LedgerTableName)) return 'remote-service';
  // By service name: several functions share the starter's and the supervisor's environment keys
  // (the operator's action and inspect functions read the same state machine and start queue).
  if (environment[PowertoolsEnvKey.ServiceName] === RoleServiceName.Starter) return 'starter';
  if (environment[PowertoolsEnvKey.ServiceName] === RoleServiceName.Supervisor) return 'supervisor';
  return 'other';
}

export interface TemplateResource {
  readonly Type: string;
  readonly Properties?: Record<string, unknown>;
  readonly Metadata?: Record<string, unknown>;
}

/** The assembly's stacks, each with its template's resources (from `<stack>.template.json`). */
export function assemblyTemplates(
  assemblyDir: string,
): Array<{ readonly stackName: string; readonly resources: Readonly<Record<string, TemplateResource>> }> {
  const templates = readdirSync(assemblyDir).filter((file) => file.endsWith('.template.json'));
  if (templates.length === 0) throw new Error(`${assemblyDir} holds no *.template.json: synthesize first`);
  return templates.map((file) => {
    const template = JSON.parse(readFileSync(join(assemblyDir, file), 'utf8')) as {
      Resources?: Record<string, TemplateResource>;
    };
    return { stackName: file.replace(/\.template\.json$/, ''), resources: template.Resources ?? {} };
  });
}

/** Every function of the assembly with a bundled asset, its environment and its role. */
export function assemblyFunctions(assemblyDir: string): AssemblyFunction[] {
  const functions: AssemblyFunction[] = [];
  for (const { stackName, resources } of assemblyTemplates(assemblyDir)) {
    for (const [logicalId, resource] of Object.entries(resources)) {
      if (resource.Type !== 'AWS::Lambda::Function') continue;
      const assetPath = resource.Metadata?.['aws:asset:path'];
      if (typeof assetPath !== 'string') continue;
      const variables = (
        resource.Properties?.Environment as { Variables?: Record<string, unknown> } | undefined
      )?.Variables;
      const environment: Record<string, string> = {};
      for (const [key, value] of Object.entries(variables ?? {})) {
        environment[key] = typeof value === 'string' ? value : JSON.stringify(value);
      }
      const timeout = Number(resource.Properties?.Timeout);
      functions.push({
        logicalId,
        stackName,
        role: roleOf(environment),
        assetDir: resolve(assemblyDir, assetPath),
        environment,
        // Lambda's default when the template names none
        timeoutSeconds: Number.isFinite(timeout) && timeout > 0 ? timeout : 3,
      });
    }
  }
  return functions;
}

export function readAssemblyFacts(assemblyDir: string): AssemblyFacts {
  const functions = assemblyFunctions(assemblyDir);
  const only = (role: FunctionRole): AssemblyFunction => {
    const found = functions.filter((fn) => fn.role === role);
    if (found.length !== 1) {
      throw new Error(`Expected exactly one ${role} function in ${assemblyDir}, found ${found.length}`);
    }
    return found[0] as AssemblyFunction;
  };
  const agents = functions.filter((fn) => fn.role === 'agent');
  if (agents.length === 0) throw new Error(`No agent function (with ${EnvKey.StepName}) in ${assemblyDir}`);
  const timingsJson = agents[0]?.environment[EnvKey.WorkflowTimings];
  if (!timingsJson) throw new Error(`The agent functions carry no ${EnvKey.WorkflowTimings}`);
  const agentStack = agents[0]?.stackName;
  const admissionJson = functions.find(
    (fn) => fn.stackName === agentStack && EnvKey.AdmissionSettings in fn.environment,
  )?.environment[EnvKey.AdmissionSettings];
  if (!admissionJson) throw new Error(`No function of ${agentStack} carries ${EnvKey.AdmissionSettings}`);
  const retryBudget = agents[0]?.environment[EnvKey.RetryBudget];
  if (!retryBudget) throw new Error(`The agent functions carry no ${EnvKey.RetryBudget}`);
  return {
    assemblyDir,
    timings: parseWorkflowTimings(timingsJson),
    functions,
    supervisor: only('supervisor'),
    starter: only('starter'),
    agents,
    admission: parseAdmissionSettings(admissionJson),
    retryBudget: parseRetryBudget(retryBudget),
  };
}

/** A deliberate bug planted in a bundled asset, and the invariant that must catch it. */
export interface BrokenVariant {
  readonly name: string;
  readonly description: string;
  readonly role: FunctionRole;
  /**
   * Instead of a role: the queue consumer of this choreography service (its POWERTOOLS_SERVICE_NAME,
   * with a dead-letter queue of its own; not the same service's API or relay functions).
   */
  readonly consumerOf?: string;
  /** Instead of a role: the functions of this POWERTOOLS_SERVICE_NAME (RoleServiceName). */
  readonly serviceName?: string;
  /** Must match the bundle exactly once: a bundle that changed shape fails loudly, not silently. */
  readonly pattern: RegExp;
  readonly replacement: string;
  readonly expectedViolation: string;
}

export const BROKEN_VARIANTS = {
  agentKeyIncludesToken: {
    name: 'agent-key-includes-token',
    description:
      'the agent derives its idempotency key (Powertools and the Idempotency-Key header) from the task token, so every attempt looks new downstream',
    role: 'agent',
    pattern: /\{idempotencyKey:(\w+)\.idempotencyKey,orderId:\1\.orderId,step:\1\.step,/,
    replacement:
      '{idempotencyKey:$1.idempotencyKey+":"+require("node:crypto").createHash("sha256").update($1.taskToken).digest("hex").slice(0,12),orderId:$1.orderId,step:$1.step,',
    expectedViolation: 'one-effect-per-key',
  },
  agentCompensationNamesTheOrder: {
    name: 'agent-compensation-names-the-order',
    description:
      "the agent's compensation call names the order (undoes: orderId) instead of the step's effect, so the service finds nothing to undo, answers undone: false, and the effect stands while the order ends Compensated",
    role: 'agent',
    pattern: /\{orderId:(\w+)\.orderId,undoes:(\w+)\.undoes\}/,
    replacement: '{orderId:$1.orderId,undoes:$1.orderId}',
    expectedViolation: 'compensation-exact',
  },
  agentSkipsBudget: {
    name: 'agent-skips-budget',
    description:
      "the agent calls the remote service without reserving the call in the order's record, so nothing counts its calls against the retry budget",
    role: 'agent',
    pattern: /let (\w+)=(\w+)\.reserve\?await \2\.reserve\(\):\{kind:"reserved"\};/,
    replacement: 'let $1={kind:"reserved"};',
    expectedViolation: 'calls-within-budget',
  },
  supervisorThresholdOffByOne: {
    name: 'supervisor-threshold-off-by-one',
    description:
      'the supervisor fails an order only once FailureCount passes maxFailures, not when it reaches it',
    role: 'supervisor',
    pattern: /if\((\w+)>=(\w+)\.maxFailures\)return\{kind:"fail"/,
    replacement: 'if($1>$2.maxFailures)return{kind:"fail"',
    expectedViolation: 'failure-count-within-threshold',
  },
  relayDropsUnpublishedAlert: {
    name: 'relay-drops-unpublished-alert',
    description:
      "the alert relay (status notifier) ignores a failed PutEvents and removes the outbox entry anyway, so an alert the bus refused is lost (the supervisor's backstop finds nothing left to deliver)",
    role: 'other',
    serviceName: RoleServiceName.StatusNotifier,
    pattern: /await (\w+)\.publisher\.publishAlert\((\w+)\),(\w+)\.delivered\+=1;/,
    replacement: 'await $1.publisher.publishAlert($2).catch(()=>{}),$3.delivered+=1;',
    expectedViolation: 'error-exactly-one-alert',
  },
  droneSchedulerDropsVersionCondition: {
    name: 'drone-scheduler-drops-version-condition',
    description:
      'the drone scheduler writes a DRONE# item unconditionally (not on the version it read), so of two deliveries booking one drone at once both win',
    role: 'other',
    consumerOf: 'drone-scheduler',
    // droneWriteOf (adapters/drone-fleet.ts), bundled: `function f(table,update){let condition=...;`
    pattern:
      /function (\w+)\((\w+),(\w+)\)\{let (\w+)=\3\.expectedVersion===0\?\{ConditionExpression:"attribute_not_exists\(#pk\)"[^;]*;/,
    replacement: 'function $1($2,$3){let $4={};',
    expectedViolation: 'no-drone-double-booked',
  },
  deliveryTerminalStatusChanges: {
    name: 'delivery-terminal-status-changes',
    description:
      'the Delivery service reacts to events after a terminal status (its lifecycle no longer only moves forward), so a second decision emits a second terminal event',
    role: 'other',
    consumerOf: 'delivery',
    // reactToDeliveryEvent's guard, bundled: `if(guards.isFinal(current.status))return ignored(...)`
    pattern:
      /if\((\w+(?:\.isFinal)?)\((\w+)\.status\)\)return (\w+)\(`the delivery is \$\{\2\.status\} already`\);/,
    replacement: '',
    expectedViolation: 'lifecycle-in-sequence',
  },
  projectionTakesDuplicates: {
    name: 'projection-takes-duplicates',
    description:
      'the ingestion read model does not de-duplicate: its processed-message marker is unique per receive and its history takes an event it already holds',
    role: 'other',
    consumerOf: 'ingestion',
    pattern:
      /(\w+)=(\w+)=>`MSG#\$\{\2\}`,([\s\S]*?)if\((\w+)\.history\.some\((\w+)=>\5\.producer===(\w+)\.producer&&\5\.sequence===\6\.sequence\)\)return/,
    replacement: '$1=$2=>"MSG#"+$2+"#"+Math.random(),$3if(false)return',
    expectedViolation: 'state-matches-events',
  },
} as const satisfies Record<string, BrokenVariant>;

/**
 * Copies the assembly to `targetDir` and plants each variant's bug in the bundles of its role.
 * The original assembly is left untouched.
 */
export function plantBrokenVariants(
  sourceDir: string,
  targetDir: string,
  variants: readonly BrokenVariant[],
): void {
  if (existsSync(targetDir))
    throw new Error(`${targetDir} exists: pick a fresh directory for the broken copy`);
  cpSync(sourceDir, targetDir, { recursive: true });
  const functions = assemblyFunctions(targetDir);
  for (const variant of variants) {
    const patched = functions.filter((fn) =>
      variant.serviceName !== undefined
        ? fn.environment[PowertoolsEnvKey.ServiceName] === variant.serviceName
        : variant.consumerOf === undefined
          ? fn.role === variant.role
          : fn.environment[PowertoolsEnvKey.ServiceName] === variant.consumerOf &&
            ChoreographyEnvKey.DeadLetterQueueUrl in fn.environment,
    );
    const assetDirs = [...new Set(patched.map((fn) => fn.assetDir))];
    if (assetDirs.length === 0)
      throw new Error(
        `Variant ${variant.name}: no ${variant.serviceName ?? variant.consumerOf ?? variant.role} function to patch`,
      );
    for (const assetDir of assetDirs) {
      const file = join(assetDir, 'index.js');
      const code = readFileSync(file, 'utf8');
      const global = new RegExp(variant.pattern.source, 'g');
      const matches = code.match(global)?.length ?? 0;
      if (matches !== 1) {
        throw new Error(
          `Variant ${variant.name}: expected its pattern once in ${file}, found ${matches}; the bundle changed shape`,
        );
      }
      writeFileSync(file, code.replace(variant.pattern, variant.replacement));
    }
  }
}
