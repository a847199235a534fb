/**
 * Black-box client of a running system: the HTTP API plus read-only views of the state store, the
 * downstream ledger and the operator alert inbox. Built from a target description only.
 */
import { type AttributeValue, DynamoDBClient, GetItemCommand, paginateScan } from '@aws-sdk/client-dynamodb';
import { DeleteMessageCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { TargetDescription } from './target';

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
  /** Alerts drained from the inbox so far: the inbox is a queue, so reads are kept, not repeated. */
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

  /** Drains the alert inbox into memory and returns every alert seen so far for this order. */
  async alertsFor(orderId: string): Promise<AlertMessage[]> {
    for (;;) {
      const { Messages } = await this.sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: this.target.outputs.AlertInboxQueueUrl,
          MaxNumberOfMessages: 10,
          WaitTimeSeconds: 0,
        }),
      );
      if (!Messages || Messages.length === 0) break;
      for (const message of Messages) {
        const event = JSON.parse(message.Body ?? '{}') as {
          'detail-type'?: string;
          detail?: Record<string, unknown>;
        };
        this.alerts.push({ detailType: event['detail-type'] ?? '?', detail: event.detail ?? {} });
        await this.sqs.send(
          new DeleteMessageCommand({
            QueueUrl: this.target.outputs.AlertInboxQueueUrl,
            ReceiptHandle: message.ReceiptHandle,
          }),
        );
      }
    }
    return this.alerts.filter((alert) => alert.detail.orderId === orderId);
  }

  /** Counts messages currently visible on the conflict dead-letter queue that mention the order. */
  async conflictMessagesFor(orderId: string): Promise<number> {
    const { Messages } = await this.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: this.target.outputs.ConflictQueueUrl,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: 0,
        VisibilityTimeout: 0,
      }),
    );
    return (Messages ?? []).filter((message) => (message.Body ?? '').includes(orderId)).length;
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
