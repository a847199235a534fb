/**
 * The capacity model: for each AWS quota (and each setting of ours) that applies to an app, the
 * rate of requests (orders or deliveries per second) at which it binds, from the template's numbers
 * (capacity-template.ts) and what one request uses, as the meter counted it in a cost figure's
 * batch. A quota of `value` per second that one request uses `perUnit` times binds at
 * value / perUnit requests per second; one spread over n partitions (shards, counters) at
 * n x value / perUnit. Pure arithmetic: the figure (figures/capacity.ts) feeds it.
 */
import { EVENTBRIDGE_DELIVERY, type RuntimeUsage } from '../../local-runtime';
import type { QuotaTable } from '../quotas/us-east-1';
import type { TemplateFacts } from './capacity-template';

/** Where a request's work meets one quota, and the rate at which it binds. */
export interface Binding {
  /** The quota's key in the table, or the setting of ours (`eventSourceMaxConcurrency`, ...). */
  readonly quota: string;
  /** Whether it is an AWS quota or a setting of ours. */
  readonly kind: 'aws' | 'ours';
  /** What it applies to: `account`, a logical id, `<queue>.<action>`: with quota, a stable key. */
  readonly resource: string;
  /** The quota in words, with the resource it applies to. */
  readonly name: string;
  /** The limit, per second (or a concurrency), spread over its partitions when it has some. */
  readonly limit: number;
  /** What one request uses of it (per second of rate: calls, units, seconds of concurrency). */
  readonly perUnit: number;
  /** Requests per second at which it binds: limit / perUnit. */
  readonly bindsAt: number;
  /** What raises it: a setting of ours, a quota increase, a design change. */
  readonly raisedBy: string;
}

/** One app's input: its template's facts and a measured batch of its requests. */
export interface AppCapacityInput {
  readonly facts: TemplateFacts;
  readonly units: number;
  readonly work: RuntimeUsage;
}

/** The SQS API actions the FIFO quota names, with the batch actions that count as them. */
const FIFO_ACTIONS: Readonly<Record<string, string>> = {
  SendMessage: 'SendMessage',
  SendMessageBatch: 'SendMessage',
  ReceiveMessage: 'ReceiveMessage',
  DeleteMessage: 'DeleteMessage',
  DeleteMessageBatch: 'DeleteMessage',
};

/** A binding from its parts (bindsAt derived, never written by hand). */
export function binding(
  at: { readonly quota: string; readonly kind?: Binding['kind']; readonly resource?: string },
  name: string,
  limit: number,
  perUnit: number,
  raisedBy: string,
): Binding {
  const { quota, kind = 'aws', resource = 'account' } = at;
  return { quota, kind, resource, name, limit, perUnit, bindsAt: limit / perUnit, raisedBy };
}

/** Usage per request, keyed by logical id. */
interface PerUnit {
  readonly executions: number;
  readonly transitions: number;
  /** Calls per request by queue and FIFO action. */
  readonly queueActions: ReadonlyMap<string, ReadonlyMap<string, number>>;
  readonly topicPublishes: ReadonlyMap<string, number>;
  readonly busEvents: number;
  readonly ruleDeliveries: number;
  readonly tables: ReadonlyMap<
    string,
    {
      readUnits: number;
      writeUnits: number;
      writeRequests: number;
      /** Write units per request on each index, as the meter measured them (ReturnConsumedCapacity INDEXES). */
      indexWriteUnits: ReadonlyMap<string, number>;
    }
  >;
  /** Billed seconds per request and mean seconds per invocation, by function. */
  readonly functions: ReadonlyMap<string, { seconds: number; secondsPerInvocation: number }>;
  readonly apiRequests: ReadonlyMap<string, number>;
}

function perUnitOf(work: RuntimeUsage, units: number): PerUnit {
  const sum = <T>(record: Readonly<Record<string, T>>, of: (value: T) => number) =>
    Object.values(record).reduce((total, value) => total + of(value), 0) / units;
  const byId = <T extends { logicalId?: string }, V>(
    record: Readonly<Record<string, T>>,
    of: (value: T) => V,
  ) => new Map(Object.values(record).map((value) => [value.logicalId ?? '', of(value)]));
  return {
    executions: sum(work.stateMachines, (machine) => machine.executions),
    transitions: sum(work.stateMachines, (machine) => machine.transitions),
    queueActions: byId(work.queues, (queue) => {
      const actions = new Map<string, number>();
      for (const [action, count] of Object.entries(queue.requestsByAction)) {
        const family = FIFO_ACTIONS[action];
        if (family) actions.set(family, (actions.get(family) ?? 0) + count / units);
      }
      return actions;
    }),
    topicPublishes: byId(work.topics, (topic) => topic.publishes / units),
    busEvents: sum(work.buses, (bus) => bus.events),
    ruleDeliveries:
      sum(work.queues, (queue) => queue.deliveriesBy[EVENTBRIDGE_DELIVERY]?.requests ?? 0) +
      sum(work.topics, (topic) => topic.publishesBy[EVENTBRIDGE_DELIVERY]?.requests ?? 0),
    tables: byId(work.tables, (table) => ({
      readUnits: table.readUnits / units,
      writeUnits: table.writeUnits / units,
      // Requests of the operations that wrote (a refused conditional write counts: it writes a unit).
      writeRequests:
        Object.values(table.byOperation)
          .filter((use) => use.writeUnits > 0)
          .reduce((total, use) => total + use.requests, 0) / units,
      indexWriteUnits: new Map(
        Object.entries(table.byIndex ?? {}).map(([index, use]) => [index, use.writeUnits / units]),
      ),
    })),
    functions: byId(work.functions, (fn) => ({
      seconds: fn.billedMillis / 1_000 / units,
      secondsPerInvocation: fn.invocations === 0 ? 0 : fn.billedMillis / 1_000 / fn.invocations,
    })),
    apiRequests: byId(work.apis, (api) => api.requests / units),
  };
}

function stepFunctions(use: PerUnit, quotas: QuotaTable): Binding[] {
  return [
    binding(
      { quota: 'stepFunctionsStartExecution' },
      'Step Functions StartExecution (account)',
      quotas.stepFunctionsStartExecution.value,
      use.executions,
      'a quota increase',
    ),
    binding(
      { quota: 'stepFunctionsStateTransition' },
      'Step Functions state transitions (account)',
      quotas.stepFunctionsStateTransition.value,
      use.transitions,
      'a quota increase; fewer transitions per order (the workflow shape)',
    ),
  ];
}

function queues(input: AppCapacityInput, use: PerUnit, quotas: QuotaTable): Binding[] {
  const bindings: Binding[] = [];
  for (const [queueId, actions] of use.queueActions) {
    const facts = input.facts.queues[queueId];
    if (!facts?.fifo) continue;
    const quota = facts.highThroughput ? quotas.sqsFifoHighThroughputPerAction : quotas.sqsFifoPerAction;
    const key = facts.highThroughput ? 'sqsFifoHighThroughputPerAction' : 'sqsFifoPerAction';
    for (const [action, calls] of actions) {
      bindings.push(
        binding(
          { quota: key, resource: `${queueId}.${action}` },
          `SQS FIFO ${action} on ${queueId}${facts.highThroughput ? ' (high throughput)' : ''}`,
          quota.value,
          calls,
          facts.highThroughput
            ? 'a design change (another queue, fewer calls per request)'
            : 'a setting of ours: high throughput (DeduplicationScope messageGroup, FifoThroughputLimit perMessageGroupId); batching',
        ),
      );
    }
    if (facts.fixedMessageGroup !== undefined)
      bindings.push(...fixedGroup(input, use, queueId, actions, quotas));
  }
  return bindings;
}

/** A queue whose every message is in one group: one batch in flight at a time, whatever the concurrency. */
function fixedGroup(
  input: AppCapacityInput,
  use: PerUnit,
  queueId: string,
  actions: ReadonlyMap<string, number>,
  quotas: QuotaTable,
): Binding[] {
  const consumer = input.facts.eventSources.find((source) => source.queueId === queueId);
  const seconds = consumer ? (use.functions.get(consumer.functionId)?.secondsPerInvocation ?? 0) : 0;
  const messages = actions.get('SendMessage') ?? 0;
  if (!consumer || seconds === 0 || messages === 0) return [];
  // Batches per second one group allows, times messages per batch, over messages per request.
  return [
    binding(
      { quota: 'messageGroupInOrder', resource: queueId },
      `one message group '${input.facts.queues[queueId]?.fixedMessageGroup}' on ${queueId}: ${quotas.messageGroupInOrder.value} batch of ${consumer.batchSize} in flight, ${seconds.toFixed(3)} s each (local)`,
      (quotas.messageGroupInOrder.value * consumer.batchSize) / seconds,
      messages,
      'a design change: a message group per delivery (the rule sets one fixed group)',
    ),
  ];
}

function topicsAndBus(input: AppCapacityInput, use: PerUnit, quotas: QuotaTable): Binding[] {
  const bindings: Binding[] = [];
  for (const [topicId, publishes] of use.topicPublishes) {
    const facts = input.facts.fifoTopics[topicId];
    if (!facts || facts.highThroughput) continue;
    bindings.push(
      binding(
        { quota: 'snsFifoTopic', resource: topicId },
        `SNS FIFO topic ${topicId} (topic scope)`,
        quotas.snsFifoTopic.value,
        publishes,
        'a setting of ours: FifoThroughputScope MessageGroup (regional limits)',
      ),
    );
  }
  bindings.push(
    binding(
      { quota: 'eventBridgePutEvents' },
      'EventBridge PutEvents (account; every entry counted as a request)',
      quotas.eventBridgePutEvents.value,
      use.busEvents,
      'a quota increase; fewer events per request or entries batched per call',
    ),
    binding(
      { quota: 'eventBridgeInvocations' },
      'EventBridge rule invocations into queues and topics (account)',
      quotas.eventBridgeInvocations.value,
      use.ruleDeliveries,
      'a quota increase',
    ),
  );
  return bindings;
}

function dynamoDb(input: AppCapacityInput, use: PerUnit, quotas: QuotaTable): Binding[] {
  const write = quotas.dynamoDbPartitionWrite.value;
  const bindings: Binding[] = [];
  for (const hot of input.facts.hotItems) {
    const table = use.tables.get(hot.tableId);
    if (!table) continue;
    for (const [quota, units, words] of [
      ['dynamoDbPartitionWrite', table.writeUnits, 'writes'],
      ['dynamoDbPartitionRead', table.readUnits, 'reads'],
    ] as const) {
      bindings.push(
        binding(
          { quota, resource: hot.tableId },
          `DynamoDB ${words} on ${hot.what}`,
          quotas[quota].value * hot.items,
          units,
          'a setting of ours: more admission shards (CDK context admissionShards)',
        ),
      );
    }
  }
  for (const index of input.facts.indexes) {
    const table = use.tables.get(index.tableId);
    if (!table || table.writeRequests === 0) continue;
    // The index's write units as the meter measured them (DynamoDB Local reports each index's share);
    // without them, an upper bound: each write of the item moves its entry (a delete and a put) of at
    // most 1 KB, or of the item's size with projection ALL.
    // Measured when the meter reported any index of the table (DynamoDB Local names only the indexes
    // a write touched, so one it does not name took no units).
    const measured =
      table.indexWriteUnits.size > 0 ? (table.indexWriteUnits.get(index.indexName) ?? 0) : undefined;
    // Measured and not written by a request (a sparse index the request leaves alone): not a binding.
    if (measured === 0) continue;
    const entryUnits = index.projectsAll ? table.writeUnits / table.writeRequests : 1;
    bindings.push(
      binding(
        { quota: 'dynamoDbPartitionWrite', resource: `${index.tableId}.${index.indexName}` },
        `DynamoDB index ${index.indexName} on ${index.tableId}, hash key ${index.hashKey} over ${index.partitions} partition(s) (${index.partitionsFrom}; ${measured === undefined ? 'index units bounded from above' : 'index units as measured'})`,
        write * index.partitions,
        measured ?? 2 * table.writeRequests * entryUnits,
        index.partitions > 1
          ? 'a setting of ours: more shards of the key'
          : 'a design change: shard the key (a suffix of a few values, as DueShard does)',
      ),
    );
  }
  return bindings;
}

function lambda(input: AppCapacityInput, use: PerUnit, quotas: QuotaTable): Binding[] {
  const functions = [...use.functions].filter(([, fn]) => fn.seconds > 0);
  const totalSeconds = functions.reduce((sum, [, fn]) => sum + fn.seconds, 0);
  const busiest = functions.reduce<[string, number]>(
    (top, [id, fn]) => (fn.seconds > top[1] ? [id, fn.seconds] : top),
    ['', 0],
  );
  const bindings = [
    binding(
      { quota: 'lambdaConcurrency' },
      'Lambda concurrent executions (account; local durations)',
      quotas.lambdaConcurrency.value,
      totalSeconds,
      'a quota increase; shorter functions',
    ),
    binding(
      { quota: 'lambdaScalingRate', resource: busiest[0] },
      `Lambda scaling from idle within one 10 s step (busiest function ${busiest[0]}; local durations)`,
      quotas.lambdaScalingRate.value,
      busiest[1],
      'nothing to raise: a step of load beyond it is absorbed over more 10 s steps',
    ),
  ];
  for (const [functionId, fn] of functions) {
    const maxConcurrency = input.facts.eventSources
      .filter((source) => source.functionId === functionId)
      .reduce((sum, source) => sum + (source.maxConcurrency ?? Number.NaN), 0);
    if (maxConcurrency > 0) {
      bindings.push(
        binding(
          { quota: 'eventSourceMaxConcurrency', kind: 'ours', resource: functionId },
          `event source maximum concurrency ${maxConcurrency} of ${functionId} (local durations)`,
          maxConcurrency,
          fn.seconds,
          'a setting of ours: the consumer maxConcurrency of the profile',
        ),
      );
    }
    const reserved = input.facts.reservedConcurrency[functionId];
    if (reserved !== undefined) {
      bindings.push(
        binding(
          { quota: 'reservedConcurrency', kind: 'ours', resource: functionId },
          `reserved concurrency ${reserved} of ${functionId}`,
          reserved,
          fn.seconds,
          'a setting of ours',
        ),
      );
    }
  }
  return bindings;
}

function apiGateway(input: AppCapacityInput, use: PerUnit, quotas: QuotaTable): Binding[] {
  const total = [...use.apiRequests.values()].reduce((sum, requests) => sum + requests, 0);
  const bindings = [
    binding(
      { quota: 'apiGatewayAccount' },
      'API Gateway requests (account)',
      quotas.apiGatewayAccount.value,
      total,
      'a quota increase',
    ),
  ];
  for (const throttle of input.facts.apiThrottles) {
    const requests = use.apiRequests.get(throttle.apiId) ?? 0;
    bindings.push(
      binding(
        {
          quota: throttle.usagePlanId === undefined ? 'apiStageThrottle' : 'apiUsagePlanThrottle',
          kind: 'ours',
          resource: throttle.usagePlanId ?? throttle.apiId,
        },
        `API Gateway ${throttle.what} throttle of ${throttle.apiId}`,
        throttle.rateLimit,
        requests,
        "a setting of ours: the profile's apiThrottle (and the clients' shares)",
      ),
    );
  }
  return bindings;
}

/** Every binding that applies (one the request does not use is left out), the first to bind first. */
export function bindingRates(input: AppCapacityInput, quotas: QuotaTable): Binding[] {
  if (!(input.units > 0))
    throw new Error(`a capacity model needs a batch of at least one request, got ${input.units}`);
  const use = perUnitOf(input.work, input.units);
  return [
    ...stepFunctions(use, quotas),
    ...queues(input, use, quotas),
    ...topicsAndBus(input, use, quotas),
    ...dynamoDb(input, use, quotas),
    ...lambda(input, use, quotas),
    ...apiGateway(input, use, quotas),
  ]
    .filter((entry) => entry.perUnit > 0 && Number.isFinite(entry.bindsAt))
    .sort((a, b) => a.bindsAt - b.bindsAt);
}
