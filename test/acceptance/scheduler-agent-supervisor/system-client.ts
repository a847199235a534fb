/**
 * Black-box client of a running system: the HTTP API plus read-only views of the state store, the
 * downstream ledger and the operator alert inbox. Built from a target description only.
 */
import { type AttributeValue, DynamoDBClient, GetItemCommand, paginateScan } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDbLedger, type LedgerContents, readLedger } from '../../../lambdas/fakes/adapters/ledger';
import { LedgerAttr, LedgerItemKind } from '../../../lambdas/fakes/contracts';
import type { ServiceName } from '../../../lambdas/scheduler-agent-supervisor/contracts';
import { awsEndpoint, OperatorClient } from '../../../lib/harness/operator-client';
import { type ApiResponse, apiRequest, awsClientConfig, takeMatching } from '../client-support';
import { watchAppDenials } from '../iam-watch';
import type { TargetDescription } from '../target';

export type { ApiResponse };

export interface StateView {
  readonly processState: string;
  readonly lockedBy?: string;
  readonly failureCount: number;
  readonly attempt: number;
  readonly steps: Record<string, string>;
  /** Step name -> the compensation log entry's Status (only steps that have an entry). */
  readonly compensationLog: Record<string, string>;
}

/** One undo the fake downstream recorded: which effect it undid (or found none), and when. */
export interface LedgerUndo {
  readonly idempotencyKey: string;
  readonly undoes: string;
  readonly undone: boolean;
  readonly createdAt: string;
}

export interface AlertMessage {
  readonly detailType: string;
  readonly detail: Record<string, unknown>;
}

export class SystemClient {
  private readonly dynamo: DynamoDBClient;
  private readonly sqs: SQSClient;
  /** Alerts taken from the inbox so far: the inbox is a queue, so what was read is kept here. */
  private readonly alerts: AlertMessage[] = [];

  constructor(private readonly target: TargetDescription) {
    this.dynamo = new DynamoDBClient(awsClientConfig(target, 'dynamodb'));
    this.sqs = new SQSClient(awsClientConfig(target, 'sqs'));
  }

  get outputs(): TargetDescription['outputs'] {
    return this.target.outputs;
  }

  request(
    method: string,
    path: string,
    body?: string,
    headers: Record<string, string> = {},
  ): Promise<ApiResponse> {
    return apiRequest(this.target, method, path, body, headers);
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
    const compensationLog: Record<string, string> = {};
    for (const [name, value] of Object.entries(Item.CompensationLog?.M ?? {})) {
      compensationLog[name] = value.M?.Status?.S ?? '?';
    }
    return {
      processState: Item.ProcessState?.S ?? '?',
      ...(Item.LockedBy?.S ? { lockedBy: Item.LockedBy.S } : {}),
      failureCount: Number(Item.FailureCount?.N ?? 'NaN'),
      attempt: Number(Item.Attempt?.N ?? 'NaN'),
      steps,
      compensationLog,
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
        // Undos and closed keys are no effects; items without a Kind predate it (effects or counters).
        const kind = item[LedgerAttr.Kind]?.S;
        const isEffect =
          kind === undefined ? !(item.Pk?.S ?? '').startsWith('calls#') : kind === LedgerItemKind.Effect;
        if (isEffect && key.startsWith(`${orderId}:`)) effects.push(item);
      }
    }
    return effects;
  }

  /**
   * Undos the fake downstream recorded for this order's compensations, oldest first (same
   * test-only scan as ledgerEffects).
   */
  async ledgerUndos(orderId: string): Promise<LedgerUndo[]> {
    const undos: LedgerUndo[] = [];
    for await (const page of paginateScan(
      { client: this.dynamo },
      { TableName: this.target.outputs.LedgerTableName, ConsistentRead: true },
    )) {
      for (const item of page.Items ?? []) {
        const key = item.IdempotencyKey?.S ?? '';
        if (item[LedgerAttr.Kind]?.S !== LedgerItemKind.Undo || !key.startsWith(`${orderId}:`)) continue;
        undos.push({
          idempotencyKey: key,
          undoes: item[LedgerAttr.Undoes]?.S ?? '?',
          undone: item[LedgerAttr.Undone]?.BOOL === true,
          createdAt: item[LedgerAttr.CreatedAt]?.S ?? '',
        });
      }
    }
    return undos.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  /**
   * Alerts seen so far for this order. The inbox is a queue shared with operators: messages about
   * this order are taken (deleted) and kept in memory; every other message is put back at once.
   * An alert is delivered at least once (the outbox): copies of one `alertId` count as one alert,
   * as every reader de-duplicates them (DESIGN.md, Alert outbox).
   */
  async alertsFor(orderId: string): Promise<AlertMessage[]> {
    const bodies = await this.takeMatching(this.target.outputs.AlertInboxQueueUrl, (body) => {
      const event = JSON.parse(body) as { detail?: { orderId?: unknown } };
      return event.detail?.orderId === orderId;
    });
    for (const body of bodies) {
      const event = JSON.parse(body) as { 'detail-type'?: string; detail?: Record<string, unknown> };
      const alertId = event.detail?.alertId;
      if (typeof alertId === 'string' && this.alerts.some((alert) => alert.detail.alertId === alertId))
        continue;
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

  private takeMatching(queueUrl: string, matches: (body: string) => boolean): Promise<string[]> {
    return takeMatching(this.sqs, this.target, queueUrl, matches);
  }

  /** Polls the state store until the order is in one of the states, or fails naming what it saw. */
  async waitForState(orderId: string, states: readonly string[], timeoutMs: number): Promise<StateView> {
    const deadline = Date.now() + timeoutMs;
    const denials = watchAppDenials();
    let last: StateView | undefined;
    while (Date.now() < deadline) {
      denials.check();
      last = await this.state(orderId);
      if (last && states.includes(last.processState)) return last;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    throw new Error(
      `Order ${orderId} did not reach ${states.join('/')} within ${timeoutMs} ms; last seen: ${JSON.stringify(last)}`,
    );
  }

  /** The operator identity's principal, where the target lists one (the local runtime). */
  get operatorArn(): string | undefined {
    return this.target.identities?.operator?.userArn;
  }

  /**
   * The operator routes' client (the CLI's own, lib/harness/operator-client.ts), signing with SigV4: the
   * target's `operator` identity (the local runtime's), else on AWS the standard credential chain
   * (whose IAM policy must allow execute-api:Invoke on the /operator routes).
   */
  operator(): OperatorClient {
    const operator = this.target.identities?.operator;
    if (operator) {
      return new OperatorClient({
        apiUrl: this.target.outputs.ApiUrl,
        region: this.target.region,
        credentials: { accessKeyId: operator.accessKeyId, secretAccessKey: operator.secretAccessKey },
      });
    }
    if (this.target.kind === 'aws')
      return new OperatorClient(awsEndpoint(this.target.outputs.ApiUrl, this.target.region));
    throw new Error('The target description lists no operator identity: restart the local runtime');
  }

  /** The fake downstream's ledger entries of this order (effects, undos, closed keys, calls per key). */
  async ledger(orderId: string): Promise<LedgerContents> {
    const all = await readLedger(this.dynamo, this.target.outputs.LedgerTableName);
    const mine = <T extends { idempotencyKey: string }>(entries: readonly T[]) =>
      entries.filter((entry) => entry.idempotencyKey.startsWith(`${orderId}:`));
    return {
      effects: mine(all.effects),
      undos: mine(all.undos),
      closedKeys: mine(all.closedKeys),
      calls: mine(all.calls),
    };
  }

  /** Ends the OUTAGE a service plays for one key (the provider's fix, played by the test). */
  endOutage(service: ServiceName, idempotencyKey: string): Promise<void> {
    return new DynamoDbLedger(this.dynamo, this.target.outputs.LedgerTableName).endOutage(
      service,
      idempotencyKey,
    );
  }

  close(): void {
    this.dynamo.destroy();
    this.sqs.destroy();
  }
}
