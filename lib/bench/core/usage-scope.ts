/**
 * Which part of a metered run is the work of one stack's requests, and which its fixed cost:
 * read from the stack's template, so a figure prices an order (or a delivery) without the other
 * stack running in the same runtime, without the stand-ins for downstream services (fakes, whose
 * bill is the downstream's), and without what scheduled functions do by the clock.
 *
 *   work:  every resource of the stack, but stand-ins; scheduled functions' invocations and reads
 *          left out (a sweep reads whether or not an order is due); their writes kept (a sweep writes
 *          only when it acts on an order); the reads of tools that call the runtime's DynamoDB
 *          endpoint without naming themselves (the meter's UNNAMED_CALLER: the bench's terminal
 *          tracker polling the records, a test's client) left out, as they are no caller of the app; receives that found nothing left out (long polls of idle
 *          queues: a cost of time, whose local cadence is not AWS's pollers'); alarm notifications
 *          left out (CloudWatch alarms publish when their state changes, by the clock and the
 *          metrics, not per request), with the topics' deliveries of them to queues.
 *   fixed: the scheduled functions' invocations, duration and reads.
 */
import { FAKES_METRICS_NAMESPACE, FakesEnvKey } from '../../../lambdas/fakes/contracts';
import { PowertoolsEnvKey } from '../../../lambdas/shared/env';
import { assemblyFunctions, assemblyTemplates } from '../../harness/assembly';
import {
  type Billed,
  CLOUDWATCH_ALARM_DELIVERY,
  isCausedBy,
  type MeteredResource,
  type RuntimeUsage,
  type TableUsage,
} from '../../local-runtime';
import { UNNAMED_CALLER } from '../../local-runtime/dynamodb/capacity-meter';
import { parseRateExpression } from '../../local-runtime/eventbridge/event-buses';

export interface AppScope {
  readonly stackName: string;
  /** Functions an EventBridge schedule invokes, by logical id, with their rate in seconds. */
  readonly scheduledRateSeconds: ReadonlyMap<string, number>;
  /** Logical ids of functions and tables that stand in for downstream services. */
  readonly standIns: ReadonlySet<string>;
  /** Logical ids of the stack's functions whose Architectures is not arm64 (priced as arm64). */
  readonly notArm64: readonly string[];
}

interface Reference {
  readonly Ref?: string;
  readonly 'Fn::GetAtt'?: readonly [string, string];
}

export function appScopeOf(assemblyDir: string, stackName: string): AppScope {
  const template = assemblyTemplates(assemblyDir).find((candidate) => candidate.stackName === stackName);
  if (!template) throw new Error(`${assemblyDir} has no stack ${stackName}`);
  const scheduledRateSeconds = new Map<string, number>();
  for (const resource of Object.values(template.resources)) {
    const schedule = resource.Properties?.ScheduleExpression;
    if (resource.Type !== 'AWS::Events::Rule' || typeof schedule !== 'string') continue;
    for (const target of (resource.Properties?.Targets ?? []) as { Arn?: Reference }[]) {
      const functionId = target.Arn?.['Fn::GetAtt']?.[0];
      if (functionId && template.resources[functionId]?.Type === 'AWS::Lambda::Function') {
        scheduledRateSeconds.set(functionId, parseRateExpression(schedule) / 1000);
      }
    }
  }
  const standIns = new Set<string>();
  for (const fn of assemblyFunctions(assemblyDir)) {
    if (fn.stackName !== stackName) continue;
    // The fakes: the downstream services (with their ledger table) and the drone fleet.
    const ledger = fn.environment[FakesEnvKey.LedgerTableName];
    if (
      ledger === undefined &&
      fn.environment[PowertoolsEnvKey.MetricsNamespace] !== FAKES_METRICS_NAMESPACE
    ) {
      continue;
    }
    standIns.add(fn.logicalId);
    const table = ledger === undefined ? undefined : (JSON.parse(ledger) as Reference).Ref;
    if (table) standIns.add(table);
  }
  const notArm64 = Object.entries(template.resources)
    .filter(
      ([, resource]) =>
        resource.Type === 'AWS::Lambda::Function' &&
        !((resource.Properties?.Architectures ?? []) as string[]).includes('arm64'),
    )
    .map(([logicalId]) => logicalId);
  return { stackName, scheduledRateSeconds, standIns, notArm64 };
}

function keep<T extends MeteredResource>(
  record: Readonly<Record<string, T>>,
  wanted: (resource: T) => boolean,
  map: (resource: T) => T = (resource) => resource,
): Record<string, T> {
  return Object.fromEntries(
    Object.entries(record)
      .filter(([, resource]) => wanted(resource))
      .map(([name, resource]) => [name, map(resource)]),
  );
}

/** Physical names of the scope's scheduled functions, as the meter names callers. */
function scheduledNames(usage: RuntimeUsage, scope: AppScope): Set<string> {
  return new Set(
    Object.entries(usage.functions)
      .filter(
        ([, fn]) => fn.stackName === scope.stackName && scope.scheduledRateSeconds.has(fn.logicalId ?? ''),
      )
      .map(([name]) => name),
  );
}

/** Requests and read units the scheduled functions made on a table. */
function scheduledUse(
  table: TableUsage,
  scheduled: ReadonlySet<string>,
): { requests: number; readUnits: number } {
  const uses = Object.entries(table.byCaller).filter(([caller]) => scheduled.has(caller));
  return {
    requests: uses.reduce((sum, [, use]) => sum + use.requests, 0),
    readUnits: uses.reduce((sum, [, use]) => sum + use.readUnits, 0),
  };
}

/** What alarms caused, of the deliveries or publishes by who made them. */
function causedByAlarms(byWho: Readonly<Record<string, Billed>>): Billed {
  const caused = Object.entries(byWho).filter(([who]) => isCausedBy(who, CLOUDWATCH_ALARM_DELIVERY));
  return {
    requests: caused.reduce((sum, [, billed]) => sum + billed.requests, 0),
    billedRequests: caused.reduce((sum, [, billed]) => sum + billed.billedRequests, 0),
  };
}

/** The usage of the scope's requests: see the module comment. */
export function workShare(usage: RuntimeUsage, scope: AppScope): RuntimeUsage {
  const ours = (resource: MeteredResource) =>
    resource.stackName === scope.stackName && !scope.standIns.has(resource.logicalId ?? '');
  const scheduled = scheduledNames(usage, scope);
  return {
    stateMachines: keep(usage.stateMachines, ours),
    functions: keep(usage.functions, (fn) => ours(fn) && !scope.scheduledRateSeconds.has(fn.logicalId ?? '')),
    queues: keep(usage.queues, ours, (queue) => {
      const alarms = causedByAlarms(queue.deliveriesBy);
      return {
        ...queue,
        requests: queue.requests - queue.emptyReceives - alarms.requests,
        billedRequests: queue.billedRequests - queue.emptyReceives - alarms.billedRequests,
        emptyReceives: 0,
        requestsByAction: {
          ...queue.requestsByAction,
          ReceiveMessage: (queue.requestsByAction.ReceiveMessage ?? 0) - queue.emptyReceives,
          SendMessage: (queue.requestsByAction.SendMessage ?? 0) - alarms.requests,
        },
      };
    }),
    tables: keep(usage.tables, ours, (table) => {
      // The scheduled functions' reads are fixed cost; a tool's (an unnamed caller's) no one's.
      const use = scheduledUse(table, new Set([...scheduled, UNNAMED_CALLER]));
      return {
        ...table,
        requests: table.requests - use.requests,
        readUnits: table.readUnits - use.readUnits,
      };
    }),
    apis: keep(usage.apis, ours),
    buses: keep(usage.buses, ours),
    topics: keep(usage.topics, ours, (topic) => {
      const alarms = causedByAlarms(topic.publishesBy);
      return {
        ...topic,
        publishes: topic.publishes - alarms.requests,
        billedRequests: topic.billedRequests - alarms.billedRequests,
      };
    }),
  };
}

/** The usage of the scope's scheduled functions: their invocations, duration and reads. */
export function fixedShare(usage: RuntimeUsage, scope: AppScope): RuntimeUsage {
  const scheduled = scheduledNames(usage, scope);
  return {
    stateMachines: {},
    functions: Object.fromEntries(Object.entries(usage.functions).filter(([name]) => scheduled.has(name))),
    queues: {},
    tables: keep(
      usage.tables,
      (table) => table.stackName === scope.stackName,
      (table) => ({ ...table, ...scheduledUse(table, scheduled), writeUnits: 0 }),
    ),
    apis: {},
    buses: {},
    topics: {},
  };
}
