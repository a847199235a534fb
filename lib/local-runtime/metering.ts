/**
 * Metering: the local runtime counts the operations AWS bills, per resource, as cumulative counts
 * since it started (`runtime.usage()` when started with `metering: true`). A caller takes a snapshot
 * before and after a piece of work and prices the difference (`usageSince`). It knows no app: it
 * counts per function, queue, table, state machine, API, bus and topic, and names the stack and
 * logical id each one comes from, so a caller can keep one stack's resources, or one function's
 * calls, apart.
 *
 * What is counted, as AWS bills it (and where a local run differs):
 * - Step Functions (Standard workflows): a transition per state entered, and one per retry of a
 *   state (AWS bills retries as transitions), per state machine and state name.
 * - Lambda: invocations, and billed duration per function: each invocation's local wall time
 *   (init of a new sandbox included, as AWS bills the init of managed runtimes), rounded up to
 *   the millisecond, with the MemorySize of the template. Local durations are not AWS's.
 * - SQS: every API call on a queue that succeeded, per queue and action, whoever made it (the
 *   functions, the event source mappings' polls, Step Functions, deliveries of SNS and EventBridge
 *   into queues); each 64 KB chunk of a call's message payload is billed as one request; receives
 *   that returned nothing are counted apart (long polls of idle queues: a cost of time, not work).
 * - DynamoDB: request units per table, operation and caller, as DynamoDB Local reports them for
 *   the functions' and Step Functions' calls (dynamodb/capacity-meter.ts asks for them, with each
 *   secondary index's share, per table and per caller's writes), plus AWS's
 *   minimums where DynamoDB Local reports less (a Query or Scan that finds nothing: one read; a
 *   conditional write whose condition fails: one write unit), counted apart as well. Tools that
 *   use the target description's endpoint are not metered.
 * - API Gateway: requests that reached a method (routed, API key and signature accepted).
 * - EventBridge: entries PutEvents accepted onto a bus (custom events), with 64 KB chunks.
 * - SNS: publishes to a topic (Publish, each PublishBatch entry, an EventBridge or alarm delivery),
 *   with 64 KB chunks, and their payload bytes (FIFO topics bill the payload by the GB too).
 */

/** AWS bills SQS requests, EventBridge events and SNS publishes per 64 KB chunk of payload. */
export const BILLING_CHUNK_BYTES = 64 * 1024;

/** Where a metered resource comes from (absent for one made at run time). */
export interface MeteredResource {
  readonly stackName?: string;
  readonly logicalId?: string;
}

export interface StateMachineUsage extends MeteredResource {
  readonly executions: number;
  /** States entered plus retries: what AWS bills a Standard workflow. */
  readonly transitions: number;
  readonly transitionsByState: Readonly<Record<string, number>>;
}

export interface FunctionUsage extends MeteredResource {
  /** MemorySize of the template (what the GB-seconds are priced at). */
  readonly memorySizeMb: number;
  readonly invocations: number;
  /** The invocations' durations, each rounded up to 1 ms. */
  readonly billedMillis: number;
}

export interface QueueUsage extends MeteredResource {
  /** API calls on the queue that succeeded. */
  readonly requests: number;
  /** The same calls as AWS bills them: each 64 KB chunk of message payload is one request. */
  readonly billedRequests: number;
  /** ReceiveMessage calls that returned no message (included in requests). */
  readonly emptyReceives: number;
  readonly requestsByAction: Readonly<Record<string, number>>;
  /** Sends that were deliveries of another service (included in requests), by who delivered. */
  readonly deliveriesBy: Readonly<Record<string, Billed>>;
}

/** Requests, and the same requests as AWS bills them (per 64 KB chunk). */
export interface Billed {
  readonly requests: number;
  readonly billedRequests: number;
}

/** Requests and request units (on-demand: read and write request units). */
export interface CapacityUse {
  readonly requests: number;
  readonly readUnits: number;
  readonly writeUnits: number;
}

/** The units of a table's requests spent on one of its secondary indexes (included in the table's). */
export interface IndexUse {
  readonly readUnits: number;
  readonly writeUnits: number;
}

/** One caller's writes to a table: requests, units, and the units of those spent on each index. */
export interface CallerWrites {
  readonly requests: number;
  readonly writeUnits: number;
  /** By index name; writeUnits less their sum is the table's own (the item's) share. */
  readonly byIndex: Readonly<Record<string, number>>;
}

export interface TableUsage extends MeteredResource, CapacityUse {
  readonly byOperation: Readonly<Record<string, CapacityUse>>;
  /** By caller: the function's name, or STEP_FUNCTIONS_CALLER. */
  readonly byCaller: Readonly<Record<string, CapacityUse>>;
  /** The share of readUnits and writeUnits spent on each secondary index, by index name. */
  readonly byIndex: Readonly<Record<string, IndexUse>>;
  /** The write requests (PutItem, UpdateItem, DeleteItem, batches, transactions) of each caller. */
  readonly writesByCaller: Readonly<Record<string, CallerWrites>>;
  /**
   * Units AWS charges at least where DynamoDB Local reports less, included in readUnits and
   * writeUnits: reads it reported as 0 units (a Query or Scan that found nothing; AWS charges one
   * read: 0.5 units, 1 when strongly consistent) and writes refused by their condition (AWS charges
   * the existing item's size, at least 1 unit: counted at that least).
   */
  readonly minimums: {
    readonly emptyReads: number;
    readonly readUnits: number;
    readonly conditionalCheckFailures: number;
    readonly writeUnits: number;
  };
  /** TransactWriteItems cancelled (e.g. a condition failed); DynamoDB Local reports no units for them. */
  readonly cancelledTransactions: number;
}

export interface ApiUsage extends MeteredResource {
  readonly requests: number;
}

export interface BusUsage extends MeteredResource {
  /** Entries accepted onto the bus. */
  readonly events: number;
  /** The same entries as AWS bills them: each 64 KB chunk is one event. */
  readonly billedEvents: number;
}

export interface TopicUsage extends MeteredResource {
  readonly publishes: number;
  /** The same publishes as AWS bills them: each 64 KB chunk is one request. */
  readonly billedRequests: number;
  /** The publishes' message payload in bytes (FIFO topics are billed for it by the GB too). */
  readonly payloadBytes: number;
  /** By publisher: PUBLISHED_BY_API, or the service that delivered to the topic (DeliveryOptions). */
  readonly publishesBy: Readonly<Record<string, Billed>>;
}

/** What the runtime counted since it started, per resource, by name. */
export interface RuntimeUsage {
  readonly stateMachines: Readonly<Record<string, StateMachineUsage>>;
  readonly functions: Readonly<Record<string, FunctionUsage>>;
  readonly queues: Readonly<Record<string, QueueUsage>>;
  readonly tables: Readonly<Record<string, TableUsage>>;
  readonly apis: Readonly<Record<string, ApiUsage>>;
  readonly buses: Readonly<Record<string, BusUsage>>;
  readonly topics: Readonly<Record<string, TopicUsage>>;
}

export type MeteredSection = keyof RuntimeUsage;

/** The caller name of Step Functions' DynamoDB integration in TableUsage.byCaller. */
export const STEP_FUNCTIONS_CALLER = 'StepFunctions';

/** TopicUsage.publishesBy of Publish and PublishBatch calls (functions, tools). */
export const PUBLISHED_BY_API = 'API';
/** DeliveryOptions.deliveredBy of an alarm's action (its notification to a topic). */
export const CLOUDWATCH_ALARM_DELIVERY = 'CloudWatch alarm';
/** DeliveryOptions.deliveredBy of a rule's delivery to its target. */
export const EVENTBRIDGE_DELIVERY = 'EventBridge';

/** Who delivers what `origin` caused, e.g. `SNS <- CloudWatch alarm`: a chain of deliveries. */
export function deliveredVia(service: string, origin: string | undefined): string {
  return origin === undefined ? service : `${service} <- ${origin}`;
}

/** Whether a delivery (DeliveryOptions.deliveredBy) was caused by `origin`, directly or down a chain. */
export function isCausedBy(deliveredBy: string, origin: string): boolean {
  return deliveredBy === origin || deliveredBy.endsWith(` <- ${origin}`);
}

/** Billed units of a payload: one per 64 KB chunk, at least one. */
export function billedChunks(payloadBytes: number): number {
  return Math.max(1, Math.ceil(payloadBytes / BILLING_CHUNK_BYTES));
}

/** GB-seconds of a function's billed duration at its memory size. */
export function gbSeconds(usage: Pick<FunctionUsage, 'memorySizeMb' | 'billedMillis'>): number {
  return (usage.memorySizeMb / 1024) * (usage.billedMillis / 1000);
}

/** Fields that describe a resource rather than count its use: kept, not subtracted, by usageSince. */
const DESCRIPTIVE_FIELDS: ReadonlySet<string> = new Set(['stackName', 'logicalId', 'memorySizeMb']);

/**
 * What happened between two snapshots of one runtime: every count of `after` minus the same count
 * of `before` (a resource or breakdown entry absent from `before` counts from zero).
 */
export function usageSince(before: RuntimeUsage, after: RuntimeUsage): RuntimeUsage {
  return subtractCounts(after, before) as RuntimeUsage;
}

function subtractCounts(after: unknown, before: unknown): unknown {
  if (typeof after === 'number') return after - (typeof before === 'number' ? before : 0);
  if (typeof after !== 'object' || after === null) return after;
  const earlier = typeof before === 'object' && before !== null ? (before as Record<string, unknown>) : {};
  return Object.fromEntries(
    Object.entries(after).map(([key, value]) => [
      key,
      DESCRIPTIVE_FIELDS.has(key) ? value : subtractCounts(value, earlier[key]),
    ]),
  );
}

/** One DynamoDB request as the capacity meter read it: the units it used, table by table. */
export interface DynamoDbRequestRecord {
  readonly operation: string;
  readonly caller: string;
  /** Whether the operation writes items (counted in TableUsage.writesByCaller). */
  readonly writesItems?: boolean;
  readonly tables: readonly {
    readonly tableName: string;
    readonly readUnits: number;
    readonly writeUnits: number;
    readonly minimumReadUnits?: number;
    /** Each secondary index's share of readUnits and writeUnits, by index name. */
    readonly indexes?: Readonly<Record<string, IndexUse>>;
    readonly conditionalCheckFailed?: boolean;
    readonly transactionCancelled?: boolean;
  }[];
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] extends object ? Mutable<T[K]> : T[K] };
type Counts = Record<string, number>;

const emptyCapacity = (): Mutable<CapacityUse> => ({ requests: 0, readUnits: 0, writeUnits: 0 });

const increment = (counts: Counts, key: string, by = 1) => {
  counts[key] = (counts[key] ?? 0) + by;
};

/** One more request of `payloadBytes` by `who`. */
function countBilled(byWho: Record<string, Mutable<Billed>>, who: string, payloadBytes: number): void {
  const billed = byWho[who] ?? { requests: 0, billedRequests: 0 };
  byWho[who] = billed;
  billed.requests += 1;
  billed.billedRequests += billedChunks(payloadBytes);
}

/** The counters of one running runtime; provisioners report to it, `snapshot()` reads it. */
export class RuntimeMeter {
  private readonly resources: { [S in MeteredSection]: Map<string, MeteredResource> } = {
    stateMachines: new Map(),
    functions: new Map(),
    queues: new Map(),
    tables: new Map(),
    apis: new Map(),
    buses: new Map(),
    topics: new Map(),
  };
  private readonly stateMachines = new Map<string, Mutable<StateMachineUsage>>();
  private readonly functions = new Map<string, Mutable<FunctionUsage>>();
  private readonly queues = new Map<string, Mutable<QueueUsage>>();
  private readonly tables = new Map<string, Mutable<TableUsage>>();
  private readonly apis = new Map<string, Mutable<ApiUsage>>();
  private readonly buses = new Map<string, Mutable<BusUsage>>();
  private readonly topics = new Map<string, Mutable<TopicUsage>>();

  /**
   * Names where a resource comes from, and lists it (with zero counts until it is used); resources
   * never described (made at run time) are metered from their first use, without an origin.
   */
  describe(section: Exclude<MeteredSection, 'functions'>, name: string, resource: MeteredResource): void {
    this.resources[section].set(name, { stackName: resource.stackName, logicalId: resource.logicalId });
    if (section === 'stateMachines') this.stateMachine(name);
    if (section === 'queues') this.queue(name);
    if (section === 'tables') this.table(name);
    if (section === 'apis') this.api(name);
    if (section === 'buses') this.bus(name);
    if (section === 'topics') this.topic(name);
  }

  /** describe() for a function, with the memory size its duration is priced at. */
  describeFunction(name: string, resource: MeteredResource, memorySizeMb: number): void {
    this.resources.functions.set(name, { stackName: resource.stackName, logicalId: resource.logicalId });
    this.function(name, memorySizeMb);
  }

  executionStarted(stateMachineName: string): void {
    this.stateMachine(stateMachineName).executions += 1;
  }

  /** A state entered, or retried. */
  stateTransition(stateMachineName: string, stateName: string): void {
    const usage = this.stateMachine(stateMachineName);
    usage.transitions += 1;
    increment(usage.transitionsByState, stateName);
  }

  invocationEnded(functionName: string, memorySizeMb: number, durationMillis: number): void {
    const usage = this.function(functionName, memorySizeMb);
    usage.invocations += 1;
    usage.billedMillis += Math.max(1, Math.ceil(durationMillis));
  }

  /** One of the sqsRequest calls was another service's delivery (a SendMessage). */
  sqsDelivered(queueName: string, payloadBytes: number, deliveredBy: string): void {
    countBilled(this.queue(queueName).deliveriesBy, deliveredBy, payloadBytes);
  }

  /** A successful SQS call; `messagesReceived` for ReceiveMessage (0 is an empty receive). */
  sqsRequest(queueName: string, action: string, payloadBytes: number, messagesReceived?: number): void {
    const usage = this.queue(queueName);
    usage.requests += 1;
    usage.billedRequests += billedChunks(payloadBytes);
    if (messagesReceived === 0) usage.emptyReceives += 1;
    increment(usage.requestsByAction, action);
  }

  dynamoDbRequest(record: DynamoDbRequestRecord): void {
    for (const use of record.tables) {
      const usage = this.table(use.tableName);
      const minimumRead = use.minimumReadUnits ?? 0;
      const minimumWrite = use.conditionalCheckFailed ? 1 : 0;
      const readUnits = use.readUnits + minimumRead;
      const writeUnits = use.writeUnits + minimumWrite;
      const byOperation = usage.byOperation[record.operation] ?? emptyCapacity();
      const byCaller = usage.byCaller[record.caller] ?? emptyCapacity();
      usage.byOperation[record.operation] = byOperation;
      usage.byCaller[record.caller] = byCaller;
      for (const capacity of [usage, byOperation, byCaller]) {
        capacity.requests += 1;
        capacity.readUnits += readUnits;
        capacity.writeUnits += writeUnits;
      }
      if (minimumRead > 0) {
        usage.minimums.emptyReads += 1;
        usage.minimums.readUnits += minimumRead;
      }
      if (minimumWrite > 0) {
        usage.minimums.conditionalCheckFailures += 1;
        usage.minimums.writeUnits += minimumWrite;
      }
      if (use.transactionCancelled) usage.cancelledTransactions += 1;
      for (const [index, units] of Object.entries(use.indexes ?? {})) {
        const indexUse = usage.byIndex[index] ?? { readUnits: 0, writeUnits: 0 };
        usage.byIndex[index] = indexUse;
        indexUse.readUnits += units.readUnits;
        indexUse.writeUnits += units.writeUnits;
      }
      if (record.writesItems) {
        const writes = usage.writesByCaller[record.caller] ?? { requests: 0, writeUnits: 0, byIndex: {} };
        usage.writesByCaller[record.caller] = writes;
        writes.requests += 1;
        writes.writeUnits += writeUnits;
        for (const [index, units] of Object.entries(use.indexes ?? {})) {
          increment(writes.byIndex, index, units.writeUnits);
        }
      }
    }
  }

  apiRequest(apiName: string): void {
    this.api(apiName).requests += 1;
  }

  eventAccepted(busName: string, entryBytes: number): void {
    const usage = this.bus(busName);
    usage.events += 1;
    usage.billedEvents += billedChunks(entryBytes);
  }

  published(topicName: string, payloadBytes: number, publishedBy: string): void {
    const usage = this.topic(topicName);
    usage.publishes += 1;
    usage.billedRequests += billedChunks(payloadBytes);
    usage.payloadBytes += payloadBytes;
    countBilled(usage.publishesBy, publishedBy, payloadBytes);
  }

  /** A copy of every count so far. */
  snapshot(): RuntimeUsage {
    const copy = <T>(map: ReadonlyMap<string, T>) => structuredClone(Object.fromEntries(map));
    return {
      stateMachines: copy(this.stateMachines),
      functions: copy(this.functions),
      queues: copy(this.queues),
      tables: copy(this.tables),
      apis: copy(this.apis),
      buses: copy(this.buses),
      topics: copy(this.topics),
    };
  }

  /** The counts of one resource: made from `initial`, with where it comes from, the first time. */
  private entry<T extends MeteredResource>(
    map: Map<string, T>,
    section: MeteredSection,
    name: string,
    initial: Omit<T, keyof MeteredResource>,
  ): T {
    let usage = map.get(name);
    if (!usage) {
      const resource = this.resources[section].get(name);
      usage = {
        ...(resource?.stackName === undefined ? {} : { stackName: resource.stackName }),
        ...(resource?.logicalId === undefined ? {} : { logicalId: resource.logicalId }),
        ...initial,
      } as T;
      map.set(name, usage);
    }
    return usage;
  }

  private stateMachine(name: string): Mutable<StateMachineUsage> {
    return this.entry(this.stateMachines, 'stateMachines', name, {
      executions: 0,
      transitions: 0,
      transitionsByState: {},
    });
  }

  private function(name: string, memorySizeMb: number): Mutable<FunctionUsage> {
    return this.entry(this.functions, 'functions', name, { memorySizeMb, invocations: 0, billedMillis: 0 });
  }

  private queue(name: string): Mutable<QueueUsage> {
    return this.entry(this.queues, 'queues', name, {
      requests: 0,
      billedRequests: 0,
      emptyReceives: 0,
      requestsByAction: {},
      deliveriesBy: {},
    });
  }

  private table(name: string): Mutable<TableUsage> {
    return this.entry(this.tables, 'tables', name, {
      ...emptyCapacity(),
      byOperation: {},
      byCaller: {},
      byIndex: {},
      writesByCaller: {},
      minimums: { emptyReads: 0, readUnits: 0, conditionalCheckFailures: 0, writeUnits: 0 },
      cancelledTransactions: 0,
    });
  }

  private api(name: string): Mutable<ApiUsage> {
    return this.entry(this.apis, 'apis', name, { requests: 0 });
  }

  private bus(name: string): Mutable<BusUsage> {
    return this.entry(this.buses, 'buses', name, { events: 0, billedEvents: 0 });
  }

  private topic(name: string): Mutable<TopicUsage> {
    return this.entry(this.topics, 'topics', name, {
      publishes: 0,
      billedRequests: 0,
      payloadBytes: 0,
      publishesBy: {},
    });
  }
}
