/**
 * The fault injector: implements the local runtime's fault hooks (lib/local-runtime/fault-hooks.ts)
 * from the campaign plan, and records every firing. It sits only at the infrastructure boundary:
 * in front of the remote services' function URL, of the Step Functions API and of EventBridge (the
 * alert bus outages), around sandboxes, in SQS deliveries, in clocks and function copies. The
 * handlers run unmodified.
 */

import { operationForPath } from '../../../lambdas/fakes/contracts';
import type { AssemblyFacts } from '../../harness/assembly';
import type {
  FaultHooks,
  InterceptedReply,
  InterceptedRequest,
  InvocationResult,
  InvocationStart,
  RuntimeClock,
  SqsDelivery,
} from '../../local-runtime';
import { InjectorBase } from '../common/injector-base';
import { seededUnit } from '../common/random';
import { AlertBusOutages } from './alert-bus';
import { parseIdempotencyKey } from './effect-checks';
import { type FaultEvent, FaultKind } from './faults';
import type { CampaignPlan, OrderPlan } from './plan';

export interface InjectorSettings {
  readonly plan: CampaignPlan;
  readonly facts: AssemblyFacts;
  readonly enabledKinds: readonly FaultKind[];
  readonly remoteTransientPerCall: number;
  /** How long a held reply waits: past the step's task timeout, so the caller has given up. */
  readonly holdMillis: number;
  /** Offset of the supervisor's clock (ahead) and of the starter's (behind), in ms. */
  readonly supervisorClockOffsetMillis: number;
  readonly starterClockOffsetMillis: number;
  readonly now?: () => number;
  /** Replies are held on it (InjectorBase). @default - the wall clock */
  readonly clock?: RuntimeClock;
}

interface RunningInvocation {
  readonly copy: string;
  readonly keys: ReadonlySet<string>;
  readonly terminate: () => Promise<void>;
}

const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';
const SEND_TASK_SUCCESS = 'AWSStepFunctions.SendTaskSuccess';
const JSON_HEADERS = { 'content-type': 'application/json' };

export class FaultInjector extends InjectorBase<FaultKind, FaultEvent> {
  private readonly enabled: ReadonlySet<FaultKind>;
  private readonly ordersById: ReadonlyMap<string, OrderPlan>;
  private readonly callsByKey = new Map<string, number>();
  /** Faults that fire once per key or order, spent on their first firing. */
  private readonly spent = new Set<string>();
  private readonly running = new Map<string, RunningInvocation>();
  private readonly roleOfFunction = new Map<string, 'agent' | 'supervisor' | 'starter'>();
  /** The alert bus outage windows, when alert-bus-outage is on. */
  readonly alertBus?: AlertBusOutages;

  constructor(private readonly settings: InjectorSettings) {
    super((kind, at, orderIds) => ({ kind, at, orderIds }), settings.now ?? Date.now, settings.clock);
    this.enabled = new Set(settings.enabledKinds);
    this.ordersById = new Map(settings.plan.orders.map((order) => [order.orderId, order]));
    for (const agent of settings.facts.agents) this.roleOfFunction.set(agent.logicalId, 'agent');
    this.roleOfFunction.set(settings.facts.supervisor.logicalId, 'supervisor');
    this.roleOfFunction.set(settings.facts.starter.logicalId, 'starter');
    if (this.enabled.has(FaultKind.AlertBusOutage)) {
      this.alertBus = new AlertBusOutages({
        windows: settings.plan.alertBusOutages,
        fired: (orderIds) => this.record(FaultKind.AlertBusOutage, orderIds),
        now: this.now,
      });
    }
  }

  /** The hooks to pass to startLocalRuntime (the same object serves every runtime of the campaign). */
  hooks(): FaultHooks {
    const { facts } = this.settings;
    const replicas: Record<string, number> = {};
    if (this.enabled.has(FaultKind.ConcurrentSupervisors)) replicas[facts.supervisor.logicalId] = 1;
    if (this.enabled.has(FaultKind.ConcurrentStarters)) replicas[facts.starter.logicalId] = 1;
    const clockOffsetMillis: Record<string, number> = {};
    if (this.enabled.has(FaultKind.ClockSkew)) {
      clockOffsetMillis[facts.supervisor.logicalId] = this.settings.supervisorClockOffsetMillis;
      clockOffsetMillis[facts.starter.logicalId] = -this.settings.starterClockOffsetMillis;
    }
    const { alertBus } = this;
    return {
      functionUrl: (request, forward) => this.interceptRemoteCall(request, forward),
      stepFunctionsApi: (request, forward) => this.interceptStepFunctions(request, forward),
      // Only with the kind on: the proxy is one more hop for every EventBridge call of the functions.
      ...(alertBus && {
        awsApi: { eventbridge: (request, forward) => alertBus.intercept(request, forward) },
      }),
      onInvocation: (invocation) => this.observeInvocation(invocation),
      duplicateDelivery: (delivery) => this.duplicateDelivery(delivery),
      functionReplicas: replicas,
      clockOffsetMillis,
    };
  }

  /** Once per (kind, subject): true the first time (the campaign's own faults use it too). */
  firstTime(kind: FaultKind, subject: string): boolean {
    const key = `${kind} ${subject}`;
    if (this.spent.has(key)) return false;
    this.spent.add(key);
    return true;
  }

  private async interceptRemoteCall(
    request: InterceptedRequest,
    forward: () => Promise<InterceptedReply>,
  ): Promise<InterceptedReply | 'drop'> {
    const header = request.headers[IDEMPOTENCY_KEY_HEADER];
    if (request.method !== 'POST' || !header) return forward();
    const key = stableKey(header);
    const call = (this.callsByKey.get(key) ?? 0) + 1;
    this.callsByKey.set(key, call);
    const orderId = parseIdempotencyKey(key)?.orderId;
    const orderIds = orderId ? [orderId] : [];
    const planned = this.plannedFor(key);

    if (planned === FaultKind.RemoteOutage) {
      this.record(FaultKind.RemoteOutage, orderIds);
      await this.hold(this.settings.holdMillis);
      return {
        status: 504,
        headers: JSON_HEADERS,
        body: JSON.stringify({ message: 'chaos: remote outage' }),
      };
    }
    if (
      this.enabled.has(FaultKind.RemoteTransient) &&
      seededUnit(this.settings.plan.seed, 'remote-transient', key, call) <
        this.settings.remoteTransientPerCall
    ) {
      this.record(FaultKind.RemoteTransient, orderIds);
      return {
        status: 503,
        headers: { ...JSON_HEADERS, 'retry-after': '0' },
        body: JSON.stringify({ message: 'chaos: service unavailable' }),
      };
    }
    const reply = await forward();
    this.recordScenarioAnswer(request.path, orderId, reply.status);
    const succeeded = reply.status >= 200 && reply.status < 300;
    if (succeeded && planned === FaultKind.RemoteLatency && this.firstTime(planned, key)) {
      // The effect is recorded downstream; the answer arrives after the caller's deadline.
      this.record(FaultKind.RemoteLatency, orderIds);
      await this.hold(this.settings.holdMillis);
    }
    if (succeeded && planned === FaultKind.AgentKilledAfterEffect && !this.spent.has(`${planned} ${key}`)) {
      const killed = await this.killAgentsHandling(key);
      if (killed > 0 && this.firstTime(planned, key)) this.record(FaultKind.AgentKilledAfterEffect, orderIds);
    }
    return reply;
  }

  /**
   * The downstream played an order's failing scenario (its SKUs): a step refused for good
   * (permanent-failure), a compensation answered 503 (compensation-transient, UNDO-FLAKY) or
   * refused (compensation-refused, UNDO-FAIL). Other 422s (a late original call refused because its
   * key was compensated) are not the planned fault.
   */
  private recordScenarioAnswer(path: string, orderId: string | undefined, status: number): void {
    const planned = orderId ? this.ordersById.get(orderId)?.attemptFault : undefined;
    const operation = operationForPath(path.split('?')[0] ?? path);
    if (!orderId || !planned || !operation || !this.enabled.has(planned.kind)) return;
    if (operation.kind === 'perform') {
      if (status === 422 && planned.kind === FaultKind.PermanentFailure && operation.step === planned.step) {
        this.record(FaultKind.PermanentFailure, [orderId]);
      }
      return;
    }
    if (status === 503 && planned.kind === FaultKind.CompensationTransient) {
      this.record(FaultKind.CompensationTransient, [orderId]);
    }
    if (status === 422 && planned.kind === FaultKind.CompensationRefused) {
      this.record(FaultKind.CompensationRefused, [orderId]);
    }
  }

  private async killAgentsHandling(key: string): Promise<number> {
    const victims = [...this.running.values()].filter((invocation) => invocation.keys.has(key));
    await Promise.all(victims.map((victim) => victim.terminate()));
    return victims.length;
  }

  private async interceptStepFunctions(
    request: InterceptedRequest,
    forward: () => Promise<InterceptedReply>,
  ): Promise<InterceptedReply | 'drop'> {
    if (request.headers['x-amz-target'] !== SEND_TASK_SUCCESS) return forward();
    const output = taskSuccessKey(request.body);
    const key = output === undefined ? undefined : stableKey(output);
    const planned = key ? this.plannedFor(key) : undefined;
    const orderIds = key ? [parseIdempotencyKey(key)?.orderId ?? ''].filter(Boolean) : [];
    if (key && planned === FaultKind.TaskSuccessDropped && this.firstTime(planned, key)) {
      this.record(FaultKind.TaskSuccessDropped, orderIds);
      // Acknowledged as if delivered: the agent believes it answered; the task never hears of it.
      return { status: 200, headers: { 'content-type': 'application/x-amz-json-1.0' }, body: '{}' };
    }
    if (key && planned === FaultKind.TaskSuccessLate && this.firstTime(planned, key)) {
      this.record(FaultKind.TaskSuccessLate, orderIds);
      await this.hold(this.settings.holdMillis);
    }
    return forward();
  }

  private observeInvocation(invocation: InvocationStart): ((result: InvocationResult) => void) | undefined {
    const { spec } = invocation;
    const base = spec.replicaOf ?? spec.logicalId;
    const role = this.roleOfFunction.get(base);
    if (!role) return undefined;
    if (spec.clockOffsetMillis && this.enabled.has(FaultKind.ClockSkew)) this.record(FaultKind.ClockSkew);
    if (role === 'supervisor' || role === 'starter') {
      const overlapping = [...this.running.values()].some(
        (other) => other.copy !== spec.logicalId && this.sameFunction(other.copy, base),
      );
      const kind = role === 'supervisor' ? FaultKind.ConcurrentSupervisors : FaultKind.ConcurrentStarters;
      if (overlapping && this.enabled.has(kind)) this.record(kind);
    }
    this.running.set(invocation.requestId, {
      copy: spec.logicalId,
      keys: role === 'agent' ? agentKeys(invocation.event) : new Set(),
      terminate: invocation.terminate,
    });
    return () => {
      this.running.delete(invocation.requestId);
    };
  }

  private sameFunction(copyLogicalId: string, base: string): boolean {
    return copyLogicalId === base || copyLogicalId.startsWith(base);
  }

  private duplicateDelivery(delivery: SqsDelivery): number | undefined {
    if (!this.enabled.has(FaultKind.SqsDuplicate)) return undefined;
    const base = delivery.functionLogicalId.replace(/Replica\d+$/, '');
    const role = this.roleOfFunction.get(base);
    const body = parseJson(delivery.message.Body);
    const orderId = typeof body?.orderId === 'string' ? body.orderId : undefined;
    const duplicate = orderId ? this.ordersById.get(orderId)?.duplicate : undefined;
    if (!orderId || !duplicate) return undefined;
    // An agent request names its operation: the step, or the compensation it runs.
    const operation = body?.operation ?? body?.step;
    const matches =
      (role === 'starter' && duplicate.target === 'start' && body?.reason === 'submitted') ||
      (role === 'agent' && duplicate.target === operation && body?.attempt === 1);
    if (!matches || !this.firstTime(FaultKind.SqsDuplicate, orderId)) return undefined;
    this.record(FaultKind.SqsDuplicate, [orderId]);
    return duplicate.delayMillis;
  }

  private plannedFor(key: string): FaultKind | undefined {
    const planned = this.settings.plan.attemptFaultsByKey.get(stableKey(key));
    return planned && this.enabled.has(planned) ? planned : undefined;
  }
}

/** `<orderId>:<step>` of a key; decisions follow the order and step, whatever else a key carries. */
function stableKey(key: string): string {
  const parsed = parseIdempotencyKey(key);
  return parsed ? `${parsed.orderId}:${parsed.step}` : key;
}

function parseJson(text: string | undefined): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text ?? '');
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The idempotency key in a SendTaskSuccess request's output (the agent's AgentResult). */
function taskSuccessKey(body: string): string | undefined {
  const output = parseJson(
    typeof parseJson(body)?.output === 'string' ? String(parseJson(body)?.output) : '',
  );
  return typeof output?.idempotencyKey === 'string' ? output.idempotencyKey : undefined;
}

/** Idempotency keys of the agent requests in an SQS batch event. */
function agentKeys(event: unknown): ReadonlySet<string> {
  const records = (event as { Records?: Array<{ body?: string }> } | null)?.Records ?? [];
  const keys = new Set<string>();
  for (const record of records) {
    const key = parseJson(record.body)?.idempotencyKey;
    if (typeof key === 'string') keys.add(key);
  }
  return keys;
}
