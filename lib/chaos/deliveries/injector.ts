/**
 * The delivery campaign's fault injector: implements the local runtime's fault hooks from the plan
 * and records every firing. It acts only at the infrastructure boundary: the AWS API proxies of
 * the awsApi hook (DynamoDB commits, the relays' SNS and EventBridge publishes), the SQS event
 * sources (duplicates, late copies) and the sandboxes (killed after their commit). It also records,
 * for the checker, the dead letters remediation receives. The handlers run unmodified.
 */

import type { SQSRecord } from 'aws-lambda';
import { MessageAttribute, SERVICE_NAMES, ServiceName } from '../../../lambdas/choreography/contracts';
import { deadLetterKeyOf } from '../../../lambdas/choreography/kit';
import { sleep } from '../../../lambdas/shared/clock';
import type {
  FaultHooks,
  InterceptedReply,
  InterceptedRequest,
  InvocationStart,
  RuntimeClock,
  SqsDelivery,
} from '../../local-runtime';
import { InjectorBase } from '../common/injector-base';
import type { DeliveryFaultEvent, DeliveryFaultKind } from './faults';
import { DeliveryFaultKind as Kind } from './faults';
import type { DeadLetterSent } from './invariants';
import type { DeliveryCampaignPlan, DeliveryPlan } from './plan';

export interface DeliveryInjectorSettings {
  readonly plan: DeliveryCampaignPlan;
  readonly enabledKinds: readonly DeliveryFaultKind[];
  /** How long a hung DynamoDB call is held: past the consumer function's timeout. */
  readonly hangMillis: number;
  /**
   * Contention: the drone scheduler's reads of the fleet (BatchGetItem of DRONE# items) are read at
   * once and answered together with the next fleet read (a rendezvous), or alone after this many
   * milliseconds when none comes, so the bookings of a burst decide on the same fleet and race on
   * the DRONE# version condition whenever two of them are in flight at once (a fixed delay only
   * made that likely: on a busy machine the second read could come after the first had booked).
   * Not a fault kind (nothing fails): it raises the odds of the race the condition exists for. The
   * wait for a partner counts on both the run's clock and the machine's, on the run's alone when it
   * is seeded (meetNextFleetRead).
   * @default 0
   */
  readonly fleetReadDelayMillis?: number;
  readonly now?: () => number;
  /** Replies are held on it (InjectorBase). @default - the wall clock */
  readonly clock?: RuntimeClock;
}

interface Running {
  readonly service: ServiceName | undefined;
  readonly deliveryIds: ReadonlySet<string>;
  readonly terminate: () => Promise<void>;
}

const JSON_REPLY = { 'content-type': 'application/x-amz-json-1.0' };

export class DeliveryFaultInjector extends InjectorBase<DeliveryFaultKind, DeliveryFaultEvent> {
  readonly deadLetters: DeadLetterSent[] = [];
  private readonly enabled: ReadonlySet<DeliveryFaultKind>;
  private readonly byId: ReadonlyMap<string, DeliveryPlan>;
  private readonly calls = new Map<string, number>();
  private readonly spent = new Set<string>();
  private readonly running = new Map<string, Running>();
  private readonly serviceOfTable = new Map<string, ServiceName>();
  private readonly deadLetterKeys = new Set<string>();

  constructor(private readonly settings: DeliveryInjectorSettings) {
    super((kind, at, deliveryIds) => ({ kind, at, deliveryIds }), settings.now ?? Date.now, settings.clock);
    this.enabled = new Set(settings.enabledKinds);
    this.byId = new Map(settings.plan.deliveries.map((delivery) => [delivery.deliveryId, delivery]));
  }

  hooks(): FaultHooks {
    return {
      awsApi: {
        dynamodb: (request, forward) => this.dynamodb(request, forward),
        sns: (request, forward) => this.sns(request, forward),
        eventbridge: (request, forward) => this.eventbridge(request, forward),
      },
      onInvocation: (invocation) => this.observe(invocation),
      duplicateDelivery: (delivery) => this.duplicate(delivery),
    };
  }

  /** Counts calls per key: the n-th call (1-based). */
  private call(key: string): number {
    const count = (this.calls.get(key) ?? 0) + 1;
    this.calls.set(key, count);
    return count;
  }

  private once(key: string): boolean {
    if (this.spent.has(key)) return false;
    this.spent.add(key);
    return true;
  }

  private observe(invocation: InvocationStart): (() => void) | undefined {
    const service = serviceOf(invocation.spec.environment, invocation.spec.logicalId);
    const table = invocation.spec.environment.TABLE_NAME;
    if (service && table) this.serviceOfTable.set(table, service);
    const records = (invocation.event as { Records?: SQSRecord[] } | null)?.Records ?? [];
    if (service === ServiceName.Remediation) this.recordDeadLetters(records);
    const deliveryIds = new Set(
      records
        .map((record) => parseJson(record.body)?.deliveryId)
        .filter((id): id is string => typeof id === 'string'),
    );
    if (deliveryIds.size === 0) return undefined;
    this.running.set(invocation.requestId, { service, deliveryIds, terminate: invocation.terminate });
    return () => {
      this.running.delete(invocation.requestId);
    };
  }

  /**
   * Every record remediation receives is a dead letter. Those a consumer sent carry deadLetteredBy
   * (the queue's own redrive of a crashing message sets no attribute: remediation reads it as
   * RETRIES_EXHAUSTED); their key is remediation's own derivation from the very record, so it names
   * the DEADLETTER# marker remediation must write. Seen here rather than at the consumers' sends:
   * the SDK sends SQS calls to the queue URL's host, past the awsApi proxy.
   */
  private recordDeadLetters(records: readonly SQSRecord[]): void {
    for (const record of records) {
      const attributes = record.messageAttributes ?? {};
      const deadLetteredBy = attributes[MessageAttribute.DeadLetteredBy]?.stringValue;
      if (!deadLetteredBy) continue;
      const key = deadLetterKeyOf(record);
      if (this.deadLetterKeys.has(key)) continue;
      this.deadLetterKeys.add(key);
      const deliveryId = parseJson(record.body)?.deliveryId;
      const reasonCode = attributes[MessageAttribute.ReasonCode]?.stringValue;
      this.deadLetters.push({
        service: deadLetteredBy,
        key,
        ...(typeof deliveryId === 'string' ? { deliveryId } : {}),
        ...(reasonCode ? { reasonCode } : {}),
      });
    }
  }

  private duplicate(delivery: SqsDelivery): number | undefined {
    const body = parseJson(delivery.message.Body);
    const deliveryId = typeof body?.deliveryId === 'string' ? body.deliveryId : undefined;
    const plan = deliveryId ? this.byId.get(deliveryId) : undefined;
    if (!plan || !deliveryId) return undefined;
    const service = this.serviceOfFunction(delivery.functionLogicalId);
    if (!service) return undefined;
    const { sqsDuplicate, sqsLateCopy } = plan.faults;
    if (
      this.enabled.has(Kind.SqsDuplicate) &&
      sqsDuplicate?.service === service &&
      this.once(`dup ${deliveryId}`)
    ) {
      this.record(Kind.SqsDuplicate, [deliveryId]);
      return 0;
    }
    if (
      this.enabled.has(Kind.SqsLateCopy) &&
      sqsLateCopy?.service === service &&
      this.once(`late ${deliveryId}`)
    ) {
      this.record(Kind.SqsLateCopy, [deliveryId]);
      return sqsLateCopy.delayMillis;
    }
    return undefined;
  }

  private serviceOfFunction(logicalId: string): ServiceName | undefined {
    return serviceOf({}, logicalId);
  }

  /** DynamoDB: dependency faults on a service's commit, and sandboxes killed right after it. */
  private async dynamodb(
    request: InterceptedRequest,
    forward: () => Promise<InterceptedReply>,
  ): Promise<InterceptedReply | 'drop'> {
    const target = request.headers['x-amz-target'] ?? '';
    if (target.endsWith('.BatchGetItem') && this.isFleetRead(request.body)) {
      // Read now, answer with the next read: what the scheduler decides on is stale when it arrives.
      const reply = await forward();
      await this.meetNextFleetRead(this.settings.fleetReadDelayMillis ?? 0);
      return reply;
    }
    if (!target.endsWith('.TransactWriteItems')) return forward();
    const commit = commitOf(request.body);
    const service = commit ? this.serviceOfTable.get(commit.table) : undefined;
    const plan = commit?.deliveryId ? this.byId.get(commit.deliveryId) : undefined;
    if (!commit || !service || !plan) return forward();
    const dependency = plan.faults.dependencyTimeout;
    if (this.enabled.has(Kind.DependencyTimeout) && dependency?.service === service) {
      // The delivery's first message to the service: its marker names it on every attempt.
      const key = `dep ${plan.deliveryId} ${commit.markerId ?? ''}`;
      const firstMarker = this.firstMarker(plan.deliveryId, commit.markerId);
      if (firstMarker && this.call(key) <= dependency.failures) {
        this.record(Kind.DependencyTimeout, [plan.deliveryId]);
        if (dependency.mode === 'hang') await this.hold(this.settings.hangMillis);
        return {
          status: 500,
          headers: JSON_REPLY,
          body: JSON.stringify({
            __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError',
            message: 'chaos',
          }),
        };
      }
    }
    const reply = await forward();
    const killed = plan.faults.consumerKilled;
    if (
      reply.status === 200 &&
      this.enabled.has(Kind.ConsumerKilled) &&
      killed?.service === service &&
      !this.spent.has(`kill ${plan.deliveryId}`)
    ) {
      const victims = [...this.running.values()].filter(
        (entry) => entry.service === service && entry.deliveryIds.has(plan.deliveryId),
      );
      if (victims.length > 0) {
        this.spent.add(`kill ${plan.deliveryId}`);
        await Promise.all(victims.map((victim) => victim.terminate()));
        this.record(Kind.ConsumerKilled, [plan.deliveryId]);
      }
    }
    return reply;
  }

  private isFleetRead(body: string): boolean {
    if (!this.settings.fleetReadDelayMillis) return false;
    const requested = (parseJson(body)?.RequestItems ?? {}) as Record<string, unknown>;
    return Object.keys(requested).some(
      (table) => this.serviceOfTable.get(table) === ServiceName.DroneScheduler,
    );
  }

  /** A fleet read held for a partner: released by the next fleet read, or by its own timer. */
  private waitingFleetRead: (() => void) | undefined;

  private async meetNextFleetRead(limitMillis: number): Promise<void> {
    const partner = this.waitingFleetRead;
    if (partner) {
      this.waitingFleetRead = undefined;
      partner();
      return;
    }
    await new Promise<void>((resolve) => {
      const release = () => {
        if (this.waitingFleetRead === release) this.waitingFleetRead = undefined;
        resolve();
      };
      this.waitingFleetRead = release;
      // Alone once the limit has passed on the run's clock and on the machine's: the partner is
      // another consumer's invocation, whose coming is a matter of threads, and a virtual clock
      // jumps the limit as soon as the system is quiet, before that invocation has even started
      // (a broken variant's double booking then went unseen in some runs). On a seeded clock the
      // partner's invocation is on the clock too (it waits its turn, and the clock jumps only once
      // nothing waits), and the machine's time would decide which read goes alone: the clock's alone.
      const seeded = this.settings.clock?.seed !== undefined;
      void (seeded ? this.hold(limitMillis) : Promise.all([this.hold(limitMillis), sleep(limitMillis)])).then(
        release,
      );
    });
  }

  private readonly markers = new Map<string, string>();
  /** Whether this marker is the first one a faulted service committed for the delivery. */
  private firstMarker(deliveryId: string, markerId: string | undefined): boolean {
    if (!markerId) return false;
    const first = this.markers.get(deliveryId);
    if (first === undefined) {
      this.markers.set(deliveryId, markerId);
      return true;
    }
    return first === markerId;
  }

  /** SNS (Query protocol): the relay's Publish to the requests topic. */
  private async sns(
    request: InterceptedRequest,
    forward: () => Promise<InterceptedReply>,
  ): Promise<InterceptedReply | 'drop'> {
    const form = new URLSearchParams(request.body);
    if (form.get('Action') !== 'Publish') return forward();
    const envelope = parseJson(form.get('Message') ?? '');
    const deliveryId = typeof envelope?.deliveryId === 'string' ? envelope.deliveryId : undefined;
    if (deliveryId && this.relayFails('requests-topic', deliveryId, String(envelope?.eventId))) {
      return {
        status: 500,
        headers: { 'content-type': 'text/xml' },
        body: '<ErrorResponse><Error><Type>Receiver</Type><Code>InternalError</Code><Message>chaos</Message></Error><RequestId>chaos</RequestId></ErrorResponse>',
      };
    }
    return forward();
  }

  /** EventBridge: the relay's PutEvents to the delivery bus (500, or FailedEntryCount). */
  private async eventbridge(
    request: InterceptedRequest,
    forward: () => Promise<InterceptedReply>,
  ): Promise<InterceptedReply | 'drop'> {
    if (!request.headers['x-amz-target']?.endsWith('.PutEvents')) return forward();
    const entries = (parseJson(request.body)?.Entries ?? []) as Array<{ Detail?: string }>;
    const envelope = parseJson(entries[0]?.Detail ?? '');
    const deliveryId = typeof envelope?.deliveryId === 'string' ? envelope.deliveryId : undefined;
    const plan = deliveryId ? this.byId.get(deliveryId) : undefined;
    if (!plan || !deliveryId) return forward();
    const eventId = String(envelope?.eventId);
    if (this.relayFails('delivery-bus', deliveryId, eventId)) {
      return {
        status: 500,
        headers: JSON_REPLY,
        body: JSON.stringify({ __type: 'InternalException', message: 'chaos' }),
      };
    }
    const failedEntry = plan.faults.relayFailedEntry;
    if (
      this.enabled.has(Kind.RelayFailedEntry) &&
      failedEntry &&
      this.firstEvent('fe', deliveryId, eventId)
    ) {
      if (this.call(`fe ${deliveryId}`) <= failedEntry.calls) {
        this.record(Kind.RelayFailedEntry, [deliveryId]);
        return {
          status: 200,
          headers: JSON_REPLY,
          body: JSON.stringify({
            FailedEntryCount: entries.length,
            Entries: entries.map(() => ({ ErrorCode: 'InternalFailure', ErrorMessage: 'chaos' })),
          }),
        };
      }
    }
    return forward();
  }

  private readonly firstEvents = new Map<string, string>();
  /** Whether this is the delivery's first event seen at this fault point (its retries included). */
  private firstEvent(point: string, deliveryId: string, eventId: string): boolean {
    const key = `${point} ${deliveryId}`;
    const first = this.firstEvents.get(key);
    if (first === undefined) {
      this.firstEvents.set(key, eventId);
      return true;
    }
    return first === eventId;
  }

  private relayFails(destination: string, deliveryId: string, eventId: string): boolean {
    const planned = this.byId.get(deliveryId)?.faults.relayPublishError;
    if (!this.enabled.has(Kind.RelayPublishError) || planned?.destination !== destination) return false;
    if (!this.firstEvent(destination, deliveryId, eventId)) return false;
    if (this.call(`relay ${deliveryId}`) > planned.calls) return false;
    this.record(Kind.RelayPublishError, [deliveryId]);
    return true;
  }
}

/** The choreography service a function is, by POWERTOOLS_SERVICE_NAME or its logical id. */
export function serviceOf(
  environment: Readonly<Record<string, string>>,
  logicalId: string,
): ServiceName | undefined {
  const named = environment.POWERTOOLS_SERVICE_NAME;
  if (named && (SERVICE_NAMES as readonly string[]).includes(named)) return named as ServiceName;
  const id = logicalId.toLowerCase();
  if (id.includes('relay')) return undefined;
  if (id.includes('package')) return 'package';
  if (id.includes('dronescheduler') || id.includes('drone-scheduler')) return 'drone-scheduler';
  if (id.includes('remediation')) return 'remediation';
  if (id.includes('projection') || id.includes('ingestion')) return 'ingestion';
  if (id.includes('deliveryservice')) return 'delivery';
  return undefined;
}

/** The table, the delivery and the processed-message marker of a TransactWriteItems request. */
export function commitOf(
  body: string,
): { table: string; deliveryId?: string; markerId?: string } | undefined {
  const items = (parseJson(body)?.TransactItems ?? []) as Array<
    Record<
      string,
      { TableName?: string; Item?: Record<string, { S?: string }>; Key?: Record<string, { S?: string }> }
    >
  >;
  let table: string | undefined;
  let deliveryId: string | undefined;
  let markerId: string | undefined;
  for (const item of items) {
    for (const operation of Object.values(item)) {
      table ??= operation.TableName;
      const pk = operation.Item?.pk?.S ?? operation.Key?.pk?.S ?? '';
      if (pk.startsWith('MSG#')) markerId = pk.slice(4);
      const match = /^(?:DELIVERY|PACKAGES|ASSIGNMENT|REMEDIATION)#(.+)$/.exec(pk);
      if (match?.[1]) deliveryId ??= match[1];
    }
  }
  return table
    ? { table, ...(deliveryId ? { deliveryId } : {}), ...(markerId ? { markerId } : {}) }
    : undefined;
}

function parseJson(text: string | undefined): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text ?? '');
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
