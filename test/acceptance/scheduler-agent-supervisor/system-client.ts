/**
 * Black-box client of a running system: the HTTP API plus read-only views of the state store, the
 * downstream ledger and the operator alert inbox. Built from a target description only.
 */
import { type AttributeValue, DynamoDBClient, GetItemCommand, paginateScan } from '@aws-sdk/client-dynamodb';
import {
  ChangeMessageVisibilityCommand,
  DeleteMessageCommand,
  ReceiveMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import type { TargetDescription } from '../target';

export interface ApiResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly body: unknown;
  readonly text: string;
}

export interface StateView {
  readonly processState: string;
  readonly lockedBy?: string;
  readonly failureCount: number;
  readonly attempt: number;
  readonly steps: Record<string, string>;
}

export interface AlertMessage {
  readonly detailType: string;
  readonly detail: Record<string, unknown>;
}

const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

export class SystemClient {
  private readonly dynamo: DynamoDBClient;
  private readonly sqs: SQSClient;
  /** Alerts taken from the inbox so far: the inbox is a queue, so what was read is kept here. */
  private readonly alerts: AlertMessage[] = [];

  constructor(private readonly target: TargetDescription) {
    const credentials = target.kind === 'aws' ? {} : { credentials: LOCAL_CREDENTIALS };
    const endpointOf = (service: keyof TargetDescription['endpoints']) =>
      target.endpoints[service] ? { endpoint: target.endpoints[service] } : {};
    this.dynamo = new DynamoDBClient({ region: target.region, ...credentials, ...endpointOf('dynamodb') });
    this.sqs = new SQSClient({ region: target.region, ...credentials, ...endpointOf('sqs') });
  }

  get outputs(): TargetDescription['outputs'] {
    return this.target.outputs;
  }

  async request(
    method: string,
    path: string,
    body?: string,
    headers: Record<string, string> = {},
  ): Promise<ApiResponse> {
    const base = this.target.outputs.ApiUrl.replace(/\/+$/, '');
    const response = await fetch(`${base}${path}`, {
      method,
      headers: {
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(this.target.apiKey ? { 'x-api-key': this.target.apiKey } : {}),
        ...headers,
      },
      ...(body === undefined ? {} : { body }),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // Non-JSON bodies are returned as text; the tests assert JSON where the contract requires it.
    }
    return { status: response.status, headers: response.headers, body: parsed, text };
  }

  submit(order: unknown): Promise<ApiResponse> {
    return this.request('POST', '/orders', JSON.stringify(order));
  }

  getOrder(orderId: string): Promise<ApiResponse> {
    return this.request('GET', `/orders/${encodeURIComponent(orderId)}`);
  }

  async state(orderId: string): Promise<StateView | undefined> {
    const { Item } = await this.dynamo.send(
      new GetItemCommand({
        TableName: this.target.outputs.StateTableName,
        Key: { OrderID: { S: orderId } },
        ConsistentRead: true,
      }),
    );
    if (!Item) return undefined;
    const steps: Record<string, string> = {};
    for (const [name, value] of Object.entries(Item.Steps?.M ?? {})) {
      steps[name] = value.M?.Status?.S ?? '?';
    }
    return {
      processState: Item.ProcessState?.S ?? '?',
      ...(Item.LockedBy?.S ? { lockedBy: Item.LockedBy.S } : {}),
      failureCount: Number(Item.FailureCount?.N ?? 'NaN'),
      attempt: Number(Item.Attempt?.N ?? 'NaN'),
      steps,
    };
  }

  async orderExists(orderId: string): Promise<boolean> {
    const { Item } = await this.dynamo.send(
      new GetItemCommand({
        TableName: this.target.outputs.OrdersTableName,
        Key: { OrderID: { S: orderId } },
      }),
    );
    return Item !== undefined;
  }

  /**
   * Ledger effects whose idempotency key belongs to this order. A test-only scan of the fake
   * downstream's ledger (small in tests); the system itself never scans.
   */
  async ledgerEffects(orderId: string): Promise<Record<string, AttributeValue>[]> {
    const effects: Record<string, AttributeValue>[] = [];
    for await (const page of paginateScan(
      { client: this.dynamo },
      { TableName: this.target.outputs.LedgerTableName, ConsistentRead: true },
    )) {
      for (const item of page.Items ?? []) {
        const key = item.IdempotencyKey?.S ?? '';
        const isEffect = !(item.Pk?.S ?? '').startsWith('calls#');
        if (isEffect && key.startsWith(`${orderId}:`)) effects.push(item);
      }
    }
    return effects;
  }

  /**
   * Alerts seen so far for this order. The inbox is a queue shared with operators: messages about
   * this order are taken (deleted) and kept in memory; every other message is put back at once.
   */
  async alertsFor(orderId: string): Promise<AlertMessage[]> {
    const bodies = await this.takeMatching(this.target.outputs.AlertInboxQueueUrl, (body) => {
      const event = JSON.parse(body) as { detail?: { orderId?: unknown } };
      return event.detail?.orderId === orderId;
    });
    for (const body of bodies) {
      const event = JSON.parse(body) as { 'detail-type'?: string; detail?: Record<string, unknown> };
      this.alerts.push({ detailType: event['detail-type'] ?? '?', detail: event.detail ?? {} });
    }
    return this.alerts.filter((alert) => alert.detail.orderId === orderId);
  }

  /** Takes the conflict dead-letter messages about this order (test artifacts) and counts them. */
  async conflictMessagesFor(orderId: string): Promise<number> {
    const bodies = await this.takeMatching(this.target.outputs.ConflictQueueUrl, (body) =>
      body.includes(orderId),
    );
    return bodies.length;
  }

  /**
   * Receives until a round brings nothing new (at most `rounds` rounds), deleting the messages the
   * predicate matches and returning their bodies. The others stay invisible during the rounds (so
   * paging moves on) and are made visible again at the end. On AWS a receive waits up to a second:
   * a short poll samples only part of the servers and can miss messages.
   */
  private async takeMatching(
    queueUrl: string,
    matches: (body: string) => boolean,
    rounds = 10,
  ): Promise<string[]> {
    const taken: string[] = [];
    const others: string[] = [];
    try {
      for (let round = 0; round < rounds; round += 1) {
        const { Messages } = await this.sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: queueUrl,
            MaxNumberOfMessages: 10,
            WaitTimeSeconds: this.target.kind === 'local' ? 0 : 1,
            VisibilityTimeout: 30,
          }),
        );
        if (!Messages || Messages.length === 0) break;
        for (const message of Messages) {
          const body = message.Body ?? '';
          let ours = false;
          try {
            ours = matches(body);
          } catch {
            ours = false; // not JSON: not an alert this suite produced
          }
          if (ours) {
            taken.push(body);
            await this.sqs.send(
              new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: message.ReceiptHandle }),
            );
          } else if (message.ReceiptHandle) {
            others.push(message.ReceiptHandle);
          }
        }
      }
    } finally {
      await Promise.all(
        others.map((handle) =>
          this.sqs.send(
            new ChangeMessageVisibilityCommand({
              QueueUrl: queueUrl,
              ReceiptHandle: handle,
              VisibilityTimeout: 0,
            }),
          ),
        ),
      );
    }
    return taken;
  }

  /** Polls the state store until the order is in one of the states, or fails naming what it saw. */
  async waitForState(orderId: string, states: readonly string[], timeoutMs: number): Promise<StateView> {
    const deadline = Date.now() + timeoutMs;
    let last: StateView | undefined;
    while (Date.now() < deadline) {
      last = await this.state(orderId);
      if (last && states.includes(last.processState)) return last;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    throw new Error(
      `Order ${orderId} did not reach ${states.join('/')} within ${timeoutMs} ms; last seen: ${JSON.stringify(last)}`,
    );
  }

  close(): void {
    this.dynamo.destroy();
    this.sqs.destroy();
  }
}
