/**
 * The campaign's view of the running system, built from the runtime's target description only:
 * the HTTP API for submissions, and read-only views of the state store, the downstream ledger and
 * the operator alert inbox for the checker. (The scans are test-only; the system never scans.)
 */
import {
  type AttributeValue,
  BatchGetItemCommand,
  DynamoDBClient,
  paginateScan,
} from '@aws-sdk/client-dynamodb';
import {
  DeleteMessageBatchCommand,
  ReceiveMessageCommand,
  SQSClient,
  SQSServiceException,
} from '@aws-sdk/client-sqs';
import { composeLedger } from '../../lambdas/fakes/composition/ledger';
import {
  AdmissionCounterAttr,
  admissionShardKey,
  ClientStatusMessageSchema,
  CompensationAttr,
  CompensationResultAttr,
  type OperatorAction,
  OperatorActionAttr,
  type OperatorActionRequest,
  type ServiceName,
  StateAttr,
  StepAttr,
  type SubmitOrderRequest,
} from '../../lambdas/scheduler-agent-supervisor/contracts';
import { AlarmNotificationField } from '../../lambdas/shared/alarm-spec';
import { asActivity, type LocalTarget, type RuntimeClock } from '../local-runtime';
import { harnessClient } from './harness-client';
import { OperatorClient } from './operator-client';
import type {
  AlertSnapshot,
  ClientMessageDelivery,
  CompensationEntrySnapshot,
  LedgerCallsSnapshot,
  LedgerEffectSnapshot,
  LedgerUndoSnapshot,
  OperatorLogEntrySnapshot,
  RecordSnapshot,
  ReplyQueueProbe,
} from './snapshots';

export type SubmitOutcome =
  | { readonly kind: 'accepted'; readonly status: number }
  | {
      readonly kind: 'retry';
      readonly reason: string;
      readonly afterMillis: number;
      /** The HTTP status when the API answered (429: admission refused), absent on transport errors. */
      readonly status?: number;
    }
  | { readonly kind: 'refused'; readonly status: number; readonly body: string };

/**
 * A record with its UpdatedAt (epoch millis) when it parses, and as written (what an operator
 * action's expectedUpdatedAt must repeat exactly).
 */
export type TimedRecord = RecordSnapshot & { readonly updatedAt?: number; readonly updatedAtText?: string };

/** A client application as the campaign submits and reads as (the Clients output and the target). */
export interface CampaignClient {
  readonly clientId: string;
  /** The value of its API key. */
  readonly apiKey: string;
  readonly replyQueueUrl: string;
  /** Its principal's local credentials (the queue policy denies every other reader). */
  readonly reader: SQSClient;
}

/** What an operator route answered. */
export interface OperatorAnswer {
  readonly status: number;
  readonly body: Record<string, unknown>;
  /** Retry-After of a 429, in ms. */
  readonly retryAfterMillis?: number;
}

const BATCH_GET_LIMIT = 100;
/** The order campaign's stack (bin/app.ts); the app's other stacks have APIs of their own. */
const ORDER_STACK = 'SchedulerAgentSupervisor';

/** One stack of the running app as a campaign sees it: its own REST API and its own outputs. */
export interface StackView {
  /** The API's stage URL without a trailing slash. */
  readonly apiBase: string;
  readonly apiKey: string | undefined;
  /** One of the stack's outputs (throws naming it when absent). */
  output(name: string): string;
}

/**
 * A stack's own API and outputs: the target's merged `outputs` keep only the last stack's value of
 * a name that several stacks use (every stack's ApiUrl, AlertInboxQueueUrl), so each campaign takes
 * its stack's entries of `apis` and `stackOutputs`.
 */
export function stackView(target: LocalTarget, stackName: string): StackView {
  const api = target.apis?.[stackName];
  const outputs = target.stackOutputs[stackName];
  if (!api || !outputs) {
    throw new Error(
      `The local target has no REST API or outputs of stack ${stackName} (stacks: ${Object.keys(target.stackOutputs).join(', ') || 'none'})`,
    );
  }
  return {
    apiBase: api.url.replace(/\/+$/, ''),
    // The stack's own key (the target's `apiKey` is the base-port API's, another stack's here).
    apiKey: api.apiKeys[0],
    output: (name) => {
      const value = outputs[name];
      if (!value) throw new Error(`Stack ${stackName} has no ${name} output`);
      return value;
    },
  };
}

export class SystemDriver {
  private readonly dynamo: DynamoDBClient;
  private readonly sqs: SQSClient;
  private readonly stack: StackView;
  /** Every configured client, in the Clients output's order. */
  readonly clients: readonly CampaignClient[];
  /** The operator routes, signed as the target's `operator` identity. */
  private readonly operator: OperatorClient;
  /** The principal operator actions are logged as (OperatorLog `By`). */
  readonly operatorIdentity: string;

  /**
   * `clock`: the run's, when the driver is one of its actors: on a seeded clock every request it
   * sends waits its turn there (harnessClient, asActivity), and a reply's receipt time is read from
   * it. @default - requests go at once; receipt times are the machine's
   */
  constructor(
    target: LocalTarget,
    private readonly clock?: RuntimeClock,
  ) {
    const config = { region: target.region, credentials: { ...target.credentials } };
    this.dynamo = harnessClient(
      new DynamoDBClient({ ...config, endpoint: target.endpoints.dynamodb }),
      clock,
    );
    this.sqs = harnessClient(new SQSClient({ ...config, endpoint: target.endpoints.sqs }), clock);
    this.stack = stackView(target, ORDER_STACK);
    const operator = target.identities?.operator;
    if (!operator) throw new Error('The local target lists no operator identity');
    this.operatorIdentity = operator.userArn;
    this.operator = new OperatorClient({
      apiUrl: this.stack.apiBase,
      region: target.region,
      credentials: operator,
      ...(clock && { clock }),
    });
    this.clients = campaignClients(target, this.stack, config, clock);
  }

  client(clientId: string): CampaignClient {
    const client = this.clients.find((candidate) => candidate.clientId === clientId);
    if (!client)
      throw new Error(`No client ${clientId} (clients: ${this.clients.map((c) => c.clientId).join(', ')})`);
    return client;
  }

  /** POST retry or cancel, signed; the caller decides what a refusal means. */
  async operate(
    action: OperatorAction,
    orderId: string,
    request: OperatorActionRequest,
  ): Promise<OperatorAnswer> {
    const answer = await this.operator.act(action, orderId, request);
    const body: Record<string, unknown> =
      typeof answer.body === 'object' && answer.body !== null
        ? { ...answer.body }
        : { message: String(answer.body).slice(0, 200) };
    return {
      status: answer.status,
      body,
      ...(answer.retryAfterMillis !== undefined && { retryAfterMillis: answer.retryAfterMillis }),
    };
  }

  /** Ends the OUTAGE a service plays for one key (the provider's fix, played by the campaign). */
  endOutage(service: ServiceName, idempotencyKey: string): Promise<void> {
    const clock = this.clock;
    return composeLedger(
      this.dynamo,
      this.output('LedgerTableName'),
      clock && (() => clock.date()),
    ).endOutage(service, idempotencyKey);
  }

  /** Takes every status message on a client's reply queue now, read with the client's own identity. */
  drainReplies(clientId: string): Promise<ClientMessageDelivery[]> {
    const client = this.client(clientId);
    return drainQueue(client.reader, client.replyQueueUrl, (body): ClientMessageDelivery => {
      const receivedAt = this.clock?.now() ?? Date.now();
      let parsed: unknown;
      try {
        parsed = JSON.parse(body);
      } catch {
        return { queueOf: clientId, receivedAt, invalid: `not JSON: ${body.slice(0, 80)}` };
      }
      const message = ClientStatusMessageSchema.safeParse(parsed);
      return message.success
        ? { queueOf: clientId, receivedAt, message: message.data }
        : { queueOf: clientId, receivedAt, invalid: message.error.issues.map((i) => i.message).join('; ') };
    });
  }

  /**
   * One receive on `queueOf`'s reply queue with `reader`'s identity. VisibilityTimeout 0: were it
   * let in, the message would stay visible for its own client.
   */
  async probeReplyQueue(reader: string, queueOf: string): Promise<ReplyQueueProbe> {
    try {
      await this.client(reader).reader.send(
        new ReceiveMessageCommand({
          QueueUrl: this.client(queueOf).replyQueueUrl,
          MaxNumberOfMessages: 1,
          WaitTimeSeconds: 0,
          VisibilityTimeout: 0,
        }),
      );
      return { reader, queueOf, outcome: 'allowed' };
    } catch (error) {
      const name = error instanceof SQSServiceException ? error.name : (error as Error).message;
      return { reader, queueOf, outcome: name };
    }
  }

  private output(name: string): string {
    return this.stack.output(name);
  }

  /**
   * POST /orders once with a client's API key (the stack's first key without one); what to do
   * next is the caller's (retry on transport errors, 5xx and 429).
   */
  submit(order: SubmitOrderRequest, clientId?: string): Promise<SubmitOutcome> {
    const apiKey = clientId === undefined ? this.stack.apiKey : this.client(clientId).apiKey;
    return asActivity(this.clock, `client submit ${order.orderId}`, (headers) =>
      submitJson(`${this.stack.apiBase}/orders`, order, apiKey, headers),
    );
  }

  /** Consistent reads of some records (absent ones are left out). */
  async records(orderIds: readonly string[]): Promise<TimedRecord[]> {
    const keys = orderIds.map((orderId) => ({ [StateAttr.OrderId]: { S: orderId } }));
    const items = await consistentBatchGet(this.dynamo, this.output('StateTableName'), keys);
    return items.map((item) => ({ ...toRecordSnapshot(item), ...updatedAtOf(item) }));
  }

  async allRecords(): Promise<TimedRecord[]> {
    return this.scan(this.output('StateTableName'), (item) => ({
      ...toRecordSnapshot(item),
      ...updatedAtOf(item),
    }));
  }

  /**
   * Effects of original operations (undone ones included, with the key that undid them) and the
   * compensations' answers; closed keys are neither (each closing is recorded with its undo).
   */
  async ledgerContents(): Promise<{
    effects: LedgerEffectSnapshot[];
    undos: LedgerUndoSnapshot[];
    calls: LedgerCallsSnapshot[];
  }> {
    const { effects, undos, calls } = await composeLedger(
      this.dynamo,
      this.output('LedgerTableName'),
    ).contents();
    return {
      calls: calls.map(({ service, idempotencyKey, calls: count }) => ({
        service,
        idempotencyKey,
        calls: count,
      })),
      effects: effects.map(({ service, idempotencyKey, undoneBy }) => ({
        service,
        idempotencyKey,
        ...(undoneBy !== undefined ? { undoneBy } : {}),
      })),
      undos: undos.map(({ service, idempotencyKey, undoes, undone, createdAt }) => {
        const at = Date.parse(createdAt ?? '');
        return { service, idempotencyKey, undoes, undone, ...(Number.isFinite(at) ? { at } : {}) };
      }),
    };
  }

  /** Sum of the admission counters' InFlight (slots held now), read consistently shard by shard. */
  async admissionSlotsHeld(shards: number): Promise<number> {
    const table = this.output('AdmissionTableName');
    const keys = Array.from({ length: shards }, (_, shard) => ({
      [AdmissionCounterAttr.Pk]: { S: admissionShardKey(shard) },
    }));
    const output = await this.dynamo.send(
      new BatchGetItemCommand({ RequestItems: { [table]: { Keys: keys, ConsistentRead: true } } }),
    );
    return (output.Responses?.[table] ?? []).reduce(
      (sum, item) => sum + Number(item[AdmissionCounterAttr.InFlight]?.N ?? 0),
      0,
    );
  }

  /** Orders whose AlertOutbox still holds an entry: an alert not delivered yet (or never). */
  async ordersWithUndeliveredAlerts(): Promise<string[]> {
    const pending = await this.scan(this.output('StateTableName'), (item) =>
      Object.keys(item[StateAttr.AlertOutbox]?.M ?? {}).length > 0 ? (item[StateAttr.OrderId]?.S ?? '?') : '',
    );
    return pending.filter((orderId) => orderId !== '');
  }

  /**
   * Takes every alert currently in the inbox (deleting them: the inbox is a queue). The alarm
   * notifications there (CloudWatch's JSON, with AlarmName) are kept apart from the order alerts
   * (EventBridge events) by their `alarm`.
   */
  drainAlerts(): Promise<AlertSnapshot[]> {
    return drainQueue(this.sqs, this.output('AlertInboxQueueUrl'), (body) => {
      const event = JSON.parse(body) as {
        'detail-type'?: string;
        detail?: { orderId?: unknown; reason?: unknown; alertId?: unknown };
      } & Record<string, unknown>;
      const alarmName = event[AlarmNotificationField.AlarmName];
      if (typeof alarmName === 'string') {
        return {
          detailType: 'CloudWatch alarm notification',
          alarm: {
            name: alarmName.replace(`${ORDER_STACK}-`, ''),
            newState: String(event[AlarmNotificationField.NewStateValue]),
          },
        };
      }
      return {
        detailType: event['detail-type'] ?? '?',
        ...(typeof event.detail?.orderId === 'string' ? { orderId: event.detail.orderId } : {}),
        ...(typeof event.detail?.reason === 'string' ? { reason: event.detail.reason } : {}),
        ...(typeof event.detail?.alertId === 'string' ? { alertId: event.detail.alertId } : {}),
      };
    });
  }

  private async scan<T>(table: string, map: (item: Record<string, AttributeValue>) => T): Promise<T[]> {
    const items: T[] = [];
    for await (const page of paginateScan(
      { client: this.dynamo },
      { TableName: table, ConsistentRead: true },
    )) {
      items.push(...(page.Items ?? []).map(map));
    }
    return items;
  }

  close(): void {
    this.dynamo.destroy();
    this.sqs.destroy();
    for (const client of this.clients) client.reader.destroy();
  }
}

/**
 * The clients of the Clients output, each with its API key's value (the target's keys by id) and
 * an SQS client signing as its principal (the target's identity of that user).
 */
function campaignClients(
  target: LocalTarget,
  stack: StackView,
  config: { readonly region: string },
  clock: RuntimeClock | undefined,
): CampaignClient[] {
  const listed = JSON.parse(stack.output('Clients')) as Array<{
    clientId: string;
    apiKeyId: string;
    replyQueueUrl: string;
    principal: string;
  }>;
  const keys = target.apis?.[ORDER_STACK]?.apiKeyIds ?? {};
  return listed.map((client) => {
    const apiKey = keys[client.apiKeyId];
    const identity = Object.values(target.identities ?? {}).find((id) => id.userArn === client.principal);
    if (!apiKey || !identity) {
      throw new Error(
        `Client ${client.clientId}: the local target lists ${apiKey ? '' : `no API key ${client.apiKeyId}`}${!apiKey && !identity ? ' and ' : ''}${identity ? '' : `no identity for ${client.principal}`}`,
      );
    }
    return {
      clientId: client.clientId,
      apiKey,
      replyQueueUrl: client.replyQueueUrl,
      reader: harnessClient(
        new SQSClient({
          region: config.region,
          endpoint: target.endpoints.sqs,
          credentials: { accessKeyId: identity.accessKeyId, secretAccessKey: identity.secretAccessKey },
          maxAttempts: 1,
        }),
        clock,
      ),
    };
  });
}

export function toRecordSnapshot(item: Record<string, AttributeValue>): RecordSnapshot {
  const steps: Record<string, string> = {};
  for (const [name, value] of Object.entries(item[StateAttr.Steps]?.M ?? {})) {
    steps[name] = value.M?.[StepAttr.Status]?.S ?? '?';
  }
  const compensationLog: Record<string, CompensationEntrySnapshot> = {};
  for (const [name, value] of Object.entries(item[StateAttr.CompensationLog]?.M ?? {})) {
    const entry = value.M ?? {};
    const compensatedAt = Date.parse(entry[CompensationAttr.CompensatedAt]?.S ?? '');
    const undone = entry[CompensationAttr.Result]?.M?.[CompensationResultAttr.Undone]?.BOOL;
    compensationLog[name] = {
      status: entry[CompensationAttr.Status]?.S ?? '?',
      ...(entry[CompensationAttr.Uncertain]?.BOOL === true ? { uncertain: true } : {}),
      ...(Number.isFinite(compensatedAt) ? { compensatedAt } : {}),
      ...(undone !== undefined ? { undone } : {}),
    };
  }
  const operatorLog: OperatorLogEntrySnapshot[] = (item[StateAttr.OperatorLog]?.L ?? []).map((value) => {
    const entry = value.M ?? {};
    const text = (name: string) => entry[name]?.S ?? '?';
    return {
      action: text(OperatorActionAttr.Action),
      by: text(OperatorActionAttr.By),
      reason: text(OperatorActionAttr.Reason),
      seenState: text(OperatorActionAttr.SeenState),
      seenUpdatedAt: text(OperatorActionAttr.SeenUpdatedAt),
      newState: text(OperatorActionAttr.NewState),
    };
  });
  const lockedBy = item[StateAttr.LockedBy]?.S;
  const retryBudget = Number(item[StateAttr.RetryBudget]?.N);
  const callsMade = item[StateAttr.CallsMade]?.M;
  return {
    orderId: item[StateAttr.OrderId]?.S ?? '?',
    processState: item[StateAttr.ProcessState]?.S ?? '?',
    ...(lockedBy !== undefined ? { lockedBy } : {}),
    failureCount: Number(item[StateAttr.FailureCount]?.N ?? Number.NaN),
    compensationFailureCount: Number(item[StateAttr.CompensationFailureCount]?.N ?? 0),
    attempt: Number(item[StateAttr.Attempt]?.N ?? Number.NaN),
    steps,
    compensationLog,
    ...(operatorLog.length > 0 ? { operatorLog } : {}),
    ...(Number.isFinite(retryBudget) ? { retryBudget } : {}),
    ...(callsMade !== undefined
      ? {
          callsMade: Object.fromEntries(
            Object.entries(callsMade).map(([operation, value]) => [operation, Number(value.N)]),
          ),
        }
      : {}),
  };
}

/** UpdatedAt of a record as epoch millis, when it parses, and as written. */
export function updatedAtOf(item: Record<string, AttributeValue>): {
  updatedAt?: number;
  updatedAtText?: string;
} {
  const text = item[StateAttr.UpdatedAt]?.S;
  const parsed = Date.parse(text ?? '');
  return Number.isFinite(parsed) ? { updatedAt: parsed, updatedAtText: text as string } : {};
}

/**
 * Consistent reads of items by key, in batches of 100, each until nothing is left unprocessed
 * (absent items are left out).
 */
export async function consistentBatchGet(
  dynamo: DynamoDBClient,
  table: string,
  keys: readonly Record<string, AttributeValue>[],
): Promise<Record<string, AttributeValue>[]> {
  const found: Record<string, AttributeValue>[] = [];
  for (let start = 0; start < keys.length; start += BATCH_GET_LIMIT) {
    let pending = keys.slice(start, start + BATCH_GET_LIMIT);
    while (pending.length > 0) {
      const output = await dynamo.send(
        new BatchGetItemCommand({ RequestItems: { [table]: { Keys: pending, ConsistentRead: true } } }),
      );
      found.push(...(output.Responses?.[table] ?? []));
      pending = (output.UnprocessedKeys?.[table]?.Keys ?? []) as Record<string, AttributeValue>[];
    }
  }
  return found;
}

/**
 * Receives and deletes whatever a queue holds now, in arrival order (shared by the order campaign's
 * alert inbox and the delivery campaign's bus observer; both are test-only queues).
 */
export async function drainQueue<T>(
  sqs: SQSClient,
  queueUrl: string,
  parse: (body: string) => T,
): Promise<T[]> {
  const taken: T[] = [];
  for (;;) {
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }),
    );
    if (Messages.length === 0) return taken;
    taken.push(...Messages.map((message) => parse(message.Body ?? '{}')));
    await sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: Messages.map((message, index) => ({
          Id: String(index),
          ReceiptHandle: message.ReceiptHandle,
        })),
      }),
    );
  }
}

/**
 * POSTs a submission once (shared by the order and delivery campaigns): 200/202 accepted; transport
 * errors, 429 and 5xx to retry (after Retry-After when given); anything else refused.
 */
export async function submitJson(
  url: string,
  payload: unknown,
  apiKey: string | undefined,
  headers: Readonly<Record<string, string>> = {},
): Promise<SubmitOutcome> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(apiKey ? { 'x-api-key': apiKey } : {}),
        ...headers,
      },
      body: JSON.stringify(payload),
      signal: AbortSignal.timeout(30_000),
    });
  } catch (error) {
    return { kind: 'retry', reason: (error as Error).message, afterMillis: 500 };
  }
  const body = await response.text();
  if (response.status === 202 || response.status === 200)
    return { kind: 'accepted', status: response.status };
  if (response.status === 429 || response.status >= 500) {
    const retryAfter = Number(response.headers.get('retry-after'));
    return {
      kind: 'retry',
      reason: `HTTP ${response.status}`,
      status: response.status,
      afterMillis: Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : 1000,
    };
  }
  return { kind: 'refused', status: response.status, body };
}
