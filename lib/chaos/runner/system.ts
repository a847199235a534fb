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
import { DeleteMessageBatchCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { readLedger } from '../../../lambdas/fakes/adapters/ledger';
import {
  AdmissionCounterAttr,
  admissionShardKey,
  CompensationAttr,
  CompensationResultAttr,
  StateAttr,
  StepAttr,
  type SubmitOrderRequest,
} from '../../../lambdas/scheduler-agent-supervisor/contracts';
import type { LocalTarget } from '../../local-runtime';
import type {
  AlertSnapshot,
  CompensationEntrySnapshot,
  LedgerEffect,
  LedgerUndoSnapshot,
  RecordSnapshot,
} from '../core/invariants';

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

/** A record with its UpdatedAt (epoch millis) when it parses. */
export type TimedRecord = RecordSnapshot & { readonly updatedAt?: number };

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
    apiKey: api.apiKeys[0] ?? target.apiKey,
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

  constructor(target: LocalTarget) {
    const config = { region: target.region, credentials: { ...target.credentials } };
    this.dynamo = new DynamoDBClient({ ...config, endpoint: target.endpoints.dynamodb });
    this.sqs = new SQSClient({ ...config, endpoint: target.endpoints.sqs });
    this.stack = stackView(target, ORDER_STACK);
  }

  private output(name: string): string {
    return this.stack.output(name);
  }

  /** POST /orders once; what to do next is the caller's (retry on transport errors, 5xx and 429). */
  submit(order: SubmitOrderRequest): Promise<SubmitOutcome> {
    return submitJson(`${this.stack.apiBase}/orders`, order, this.stack.apiKey);
  }

  /** Consistent reads of some records (absent ones are left out). */
  async records(orderIds: readonly string[]): Promise<TimedRecord[]> {
    const table = this.output('StateTableName');
    const found: TimedRecord[] = [];
    for (let start = 0; start < orderIds.length; start += BATCH_GET_LIMIT) {
      let keys: Record<string, AttributeValue>[] = orderIds
        .slice(start, start + BATCH_GET_LIMIT)
        .map((orderId) => ({ [StateAttr.OrderId]: { S: orderId } }));
      while (keys.length > 0) {
        const output = await this.dynamo.send(
          new BatchGetItemCommand({ RequestItems: { [table]: { Keys: keys, ConsistentRead: true } } }),
        );
        found.push(
          ...(output.Responses?.[table] ?? []).map((item) => ({
            ...toRecordSnapshot(item),
            ...updatedAtOf(item),
          })),
        );
        keys = (output.UnprocessedKeys?.[table]?.Keys ?? []) as Record<string, AttributeValue>[];
      }
    }
    return found;
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
  async ledgerContents(): Promise<{ effects: LedgerEffect[]; undos: LedgerUndoSnapshot[] }> {
    const { effects, undos } = await readLedger(this.dynamo, this.output('LedgerTableName'));
    return {
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

  /** Takes every alert currently in the inbox (deleting them: the inbox is a queue). */
  drainAlerts(): Promise<AlertSnapshot[]> {
    return drainQueue(this.sqs, this.output('AlertInboxQueueUrl'), (body) => {
      const event = JSON.parse(body) as {
        'detail-type'?: string;
        detail?: { orderId?: unknown; reason?: unknown };
      };
      return {
        detailType: event['detail-type'] ?? '?',
        ...(typeof event.detail?.orderId === 'string' ? { orderId: event.detail.orderId } : {}),
        ...(typeof event.detail?.reason === 'string' ? { reason: event.detail.reason } : {}),
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
  }
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
  const lockedBy = item[StateAttr.LockedBy]?.S;
  return {
    orderId: item[StateAttr.OrderId]?.S ?? '?',
    processState: item[StateAttr.ProcessState]?.S ?? '?',
    ...(lockedBy !== undefined ? { lockedBy } : {}),
    failureCount: Number(item[StateAttr.FailureCount]?.N ?? Number.NaN),
    compensationFailureCount: Number(item[StateAttr.CompensationFailureCount]?.N ?? 0),
    attempt: Number(item[StateAttr.Attempt]?.N ?? Number.NaN),
    steps,
    compensationLog,
  };
}

/** UpdatedAt of a record as epoch millis, when it parses. */
export function updatedAtOf(item: Record<string, AttributeValue>): { updatedAt?: number } {
  const parsed = Date.parse(item[StateAttr.UpdatedAt]?.S ?? '');
  return Number.isFinite(parsed) ? { updatedAt: parsed } : {};
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
): Promise<SubmitOutcome> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(apiKey ? { 'x-api-key': apiKey } : {}) },
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
