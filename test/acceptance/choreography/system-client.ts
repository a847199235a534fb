/**
 * Black-box client of a running drone delivery system (stack DroneDelivery): its HTTP API, read-only
 * views of the services' tables (each service's state item and change log), the operator alert
 * inbox, sending a message to a consumer queue (duplicates, late and poison messages), and an
 * unknown downstream consumer subscribed to the delivery bus at run time through the EventBridge
 * API. Built from a target description only.
 */

import { randomUUID } from 'node:crypto';
import { Sha256 } from '@aws-crypto/sha256-js';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DeleteRuleCommand,
  EventBridgeClient,
  PutRuleCommand,
  PutTargetsCommand,
  RemoveTargetsCommand,
} from '@aws-sdk/client-eventbridge';
import {
  CreateQueueCommand,
  DeleteMessageCommand,
  DeleteQueueCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SetQueueAttributesCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { SignatureV4 } from '@smithy/signature-v4';
import type { DeliveryStatusBody, SubmitDeliveryRequest } from '../../../lambdas/choreography/contracts';
import type { DeliveryRecordsOutcome } from '../../../lambdas/choreography/kit';
import { serviceSendPolicy } from '../../../lambdas/shared/service-send-policy';
import { sendSigned } from '../../../lambdas/shared/signed-request';
import { PastTheDoor } from '../../../lib/harness/past-the-door';
import { type ApiResponse, apiRequest, awsClientConfig, takeMatching } from '../client-support';
import { watchAppDenials } from '../iam-watch';
import type { TargetDescription } from '../target';

/** One change log entry as a service table holds it (contracts/outbox.ts). */
export interface ChangeLogEntry {
  readonly id: string;
  readonly destination: string;
  readonly message: Record<string, unknown> & {
    readonly type?: string;
    readonly sequence?: number;
    readonly data?: Record<string, unknown>;
  };
}

export interface AlertMessage {
  readonly detailType: string;
  readonly detail: Record<string, unknown>;
}

/** Outputs naming each service's table. */
export const ServiceTable = {
  Ingestion: 'IngestionTableName',
  Package: 'PackageTableName',
  DroneScheduler: 'DroneSchedulerTableName',
  Delivery: 'DeliveryTableName',
  Remediation: 'RemediationTableName',
} as const;
export type ServiceTable = (typeof ServiceTable)[keyof typeof ServiceTable];

type Item = Record<string, unknown>;

const sleep = (millis: number) => new Promise((resolve) => setTimeout(resolve, millis));

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A message body of a queue fed by an EventBridge rule: the event, or its detail (InputPath). */
function detailOf(body: string): { detailType: string; detail: Record<string, unknown> } | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (!isRecord(parsed)) return undefined;
  if (isRecord(parsed.detail)) {
    return { detailType: String(parsed['detail-type'] ?? '?'), detail: parsed.detail };
  }
  return { detailType: '?', detail: parsed };
}

export class DeliverySystemClient {
  private readonly dynamo: DynamoDBClient;
  private readonly documents: DynamoDBDocumentClient;
  private readonly sqs: SQSClient;
  private readonly events: EventBridgeClient;
  /** Alerts taken from the inbox so far (the inbox is a queue: what was read is kept here). */
  private readonly alerts: AlertMessage[] = [];
  private door: PastTheDoor | undefined;

  constructor(private readonly target: TargetDescription) {
    this.dynamo = new DynamoDBClient(awsClientConfig(target, 'dynamodb'));
    this.documents = DynamoDBDocumentClient.from(this.dynamo);
    this.sqs = new SQSClient(awsClientConfig(target, 'sqs'));
    this.events = new EventBridgeClient(awsClientConfig(target, 'events'));
  }

  get outputs(): TargetDescription['outputs'] {
    return this.target.outputs;
  }

  output(key: string): string {
    const value = this.target.outputs[key];
    if (!value) throw new Error(`The target description has no ${key} output`);
    return value;
  }

  request(
    method: string,
    path: string,
    body?: string,
    headers: Record<string, string> = {},
  ): Promise<ApiResponse> {
    return apiRequest(this.target, method, path, body, headers);
  }

  submit(delivery: unknown, headers: Record<string, string> = {}): Promise<ApiResponse> {
    return this.request('POST', '/deliveries', JSON.stringify(delivery), headers);
  }

  /**
   * GET on an operator route (AWS_IAM), signed with SigV4 for execute-api by the target's `operator`
   * identity (the local runtime's); the body parsed as JSON.
   */
  async operatorGet(
    path: string,
    query: Record<string, string> = {},
  ): Promise<{ status: number; body: unknown }> {
    const operator = this.target.identities?.operator;
    if (!operator) throw new Error('The target description lists no operator identity to sign with');
    const signer = new SignatureV4({
      service: 'execute-api',
      region: this.target.region,
      credentials: { accessKeyId: operator.accessKeyId, secretAccessKey: operator.secretAccessKey },
      sha256: Sha256,
    });
    const url = `${this.output('ApiUrl').replace(/\/+$/, '')}${path}`;
    const response = await sendSigned(signer, { method: 'GET', url, query });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  }

  getDelivery(deliveryId: string): Promise<ApiResponse> {
    return this.request('GET', `/deliveries/${encodeURIComponent(deliveryId)}`);
  }

  /** Polls GET /deliveries/{id} until the status is one of `statuses`, or fails naming what it saw. */
  async waitForStatus(
    deliveryId: string,
    statuses: readonly string[],
    timeoutMs: number,
  ): Promise<DeliveryStatusBody> {
    const deadline = Date.now() + timeoutMs;
    const denials = watchAppDenials();
    let last: ApiResponse | undefined;
    while (Date.now() < deadline) {
      denials.check();
      last = await this.getDelivery(deliveryId);
      const body = last.body as Partial<DeliveryStatusBody> | undefined;
      if (last.status === 200 && body?.status && statuses.includes(body.status)) {
        return body as DeliveryStatusBody;
      }
      await sleep(300);
    }
    throw new Error(
      `Delivery ${deliveryId} did not reach ${statuses.join('/')} within ${timeoutMs} ms; last GET: ${last?.status} ${last?.text}`,
    );
  }

  /** Polls until `read` returns something `done` accepts; fails with the last value seen. */
  async eventually<T>(
    what: string,
    read: () => Promise<T>,
    done: (value: T) => boolean,
    timeoutMs: number,
    pollMillis = 300,
  ): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    const denials = watchAppDenials();
    let last: T = await read();
    while (!done(last)) {
      denials.check();
      if (Date.now() > deadline) {
        throw new Error(`${what}: not within ${timeoutMs} ms; last seen: ${JSON.stringify(last)}`);
      }
      await sleep(pollMillis);
      last = await read();
    }
    return last;
  }

  /**
   * Accepts a delivery past the door as the first requester (whose key the suite uses), through the
   * tooling's own kit (lib/harness/past-the-door.ts): the API would now refuse it (400), the
   * services' own checks must still stop it.
   */
  acceptPastTheDoor(request: SubmitDeliveryRequest): Promise<DeliveryRecordsOutcome> {
    this.door ??= new PastTheDoor(
      this.documents,
      this.output(ServiceTable.Ingestion),
      this.output('Requesters'),
    );
    return this.door.accept(request, randomUUID(), new Date());
  }

  /** One item of a service's table (consistent read), unmarshalled. */
  async item(table: ServiceTable, pk: string): Promise<Item | undefined> {
    const { Item } = await this.documents.send(
      new GetCommand({ TableName: this.target.outputs[table], Key: { pk }, ConsistentRead: true }),
    );
    return Item;
  }

  /** The change log (outbox) of one item: the events the service emitted about it, in order. */
  async changeLog(table: ServiceTable, pk: string): Promise<ChangeLogEntry[]> {
    const item = await this.item(table, pk);
    return Array.isArray(item?.outbox) ? (item.outbox as ChangeLogEntry[]) : [];
  }

  /** Sends a message to a consumer queue named by an output; returns the SQS message id. */
  async sendToQueue(
    queueOutput: string,
    body: string,
    options: { groupId?: string; deduplicationId?: string; attributes?: Record<string, string> } = {},
  ): Promise<string> {
    const queueUrl = this.output(queueOutput);
    const fifo = queueUrl.endsWith('.fifo');
    const { MessageId } = await this.sqs.send(
      new SendMessageCommand({
        QueueUrl: queueUrl,
        MessageBody: body,
        ...(fifo
          ? {
              MessageGroupId: options.groupId ?? 'acceptance',
              MessageDeduplicationId: options.deduplicationId ?? `${Date.now()}-${Math.random()}`,
            }
          : {}),
        ...(options.attributes
          ? {
              MessageAttributes: Object.fromEntries(
                Object.entries(options.attributes).map(([name, value]) => [
                  name,
                  { DataType: 'String', StringValue: value },
                ]),
              ),
            }
          : {}),
      }),
    );
    return MessageId ?? '';
  }

  /**
   * Waits until the queues named by these outputs hold no message, visible or in flight, twice in a
   * row: what was sent to them has been consumed (or moved to a dead-letter queue).
   */
  async waitForQueuesDrained(queueOutputs: readonly string[], timeoutMs: number): Promise<void> {
    const pending = async () => {
      let total = 0;
      for (const output of queueOutputs) {
        const { Attributes } = await this.sqs.send(
          new GetQueueAttributesCommand({
            QueueUrl: this.output(output),
            AttributeNames: [
              'ApproximateNumberOfMessages',
              'ApproximateNumberOfMessagesNotVisible',
              'ApproximateNumberOfMessagesDelayed',
            ],
          }),
        );
        for (const value of Object.values(Attributes ?? {})) total += Number(value);
      }
      return total;
    };
    let quiet = 0;
    await this.eventually(
      `queues ${queueOutputs.join(', ')} drained`,
      async () => {
        quiet = (await pending()) === 0 ? quiet + 1 : 0;
        return quiet;
      },
      (count) => count >= 2,
      timeoutMs,
    );
  }

  /**
   * Alerts seen so far that `matches` accepts. The inbox is a queue shared with operators: matching
   * messages are taken (deleted) and kept in memory; every other message is put back at once.
   */
  async alertsWhere(matches: (alert: AlertMessage) => boolean): Promise<AlertMessage[]> {
    const taken = await takeMatching(this.sqs, this.target, this.output('AlertInboxQueueUrl'), (body) => {
      const alert = detailOf(body);
      return alert !== undefined && matches(alert);
    });
    for (const body of taken) {
      const alert = detailOf(body);
      if (alert) this.alerts.push(alert);
    }
    return this.alerts.filter(matches);
  }

  alertsFor(deliveryId: string): Promise<AlertMessage[]> {
    return this.alertsWhere((alert) => alert.detail.deliveryId === deliveryId);
  }

  /**
   * An unknown downstream consumer: its own SQS FIFO queue and a rule on the delivery bus made
   * through the EventBridge API (PutRule + PutTargets), hearing every lifecycle event of the bus.
   */
  async subscribeWatcher(name: string): Promise<Watcher> {
    const queueName = `${name}.fifo`;
    const { QueueUrl } = await this.sqs.send(
      new CreateQueueCommand({
        QueueName: queueName,
        Attributes: { FifoQueue: 'true', ContentBasedDeduplication: 'true' },
      }),
    );
    if (!QueueUrl) throw new Error(`CreateQueue ${queueName} returned no URL`);
    const { Attributes } = await this.sqs.send(
      new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }),
    );
    const queueArn = Attributes?.QueueArn;
    if (!queueArn) throw new Error(`Queue ${QueueUrl} has no QueueArn`);
    const busName = this.output('DeliveryBusName');
    const { RuleArn } = await this.events.send(
      new PutRuleCommand({
        Name: name,
        EventBusName: busName,
        EventPattern: JSON.stringify({ source: ['drone-delivery.delivery'] }),
        State: 'ENABLED',
        Description: 'acceptance: an unknown downstream consumer of delivery lifecycle events',
      }),
    );
    // On AWS the bus may deliver only to a queue whose policy lets EventBridge send for this rule.
    await this.sqs.send(
      new SetQueueAttributesCommand({
        QueueUrl,
        Attributes: {
          Policy: serviceSendPolicy(queueArn, 'events.amazonaws.com', RuleArn),
        },
      }),
    );
    const put = await this.events.send(
      new PutTargetsCommand({
        Rule: name,
        EventBusName: busName,
        Targets: [
          { Id: 'watcher', Arn: queueArn, InputPath: '$.detail', SqsParameters: { MessageGroupId: name } },
        ],
      }),
    );
    if ((put.FailedEntryCount ?? 0) > 0) {
      throw new Error(`PutTargets failed: ${JSON.stringify(put.FailedEntries)}`);
    }
    return new Watcher(this.sqs, this.events, QueueUrl, name, busName, this.target.kind === 'local');
  }

  close(): void {
    this.dynamo.destroy();
    this.sqs.destroy();
    this.events.destroy();
  }
}

/** The unknown consumer's queue: everything it received, in order, kept across reads. */
export class Watcher {
  readonly received: Record<string, unknown>[] = [];

  constructor(
    private readonly sqs: SQSClient,
    private readonly events: EventBridgeClient,
    readonly queueUrl: string,
    readonly ruleName: string,
    private readonly busName: string,
    private readonly local: boolean,
  ) {}

  /** Drains what has arrived (FIFO, one group: the bus's order) and returns all received so far. */
  async drain(): Promise<Record<string, unknown>[]> {
    for (;;) {
      const { Messages } = await this.sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: this.queueUrl,
          MaxNumberOfMessages: 10,
          WaitTimeSeconds: this.local ? 0 : 1,
        }),
      );
      if (!Messages || Messages.length === 0) return this.received;
      for (const message of Messages) {
        const parsed = detailOf(message.Body ?? '');
        if (parsed) this.received.push(parsed.detail);
        await this.sqs.send(
          new DeleteMessageCommand({ QueueUrl: this.queueUrl, ReceiptHandle: message.ReceiptHandle }),
        );
      }
    }
  }

  async remove(): Promise<void> {
    await this.events
      .send(new RemoveTargetsCommand({ Rule: this.ruleName, EventBusName: this.busName, Ids: ['watcher'] }))
      .catch(() => undefined);
    await this.events
      .send(new DeleteRuleCommand({ Name: this.ruleName, EventBusName: this.busName }))
      .catch(() => undefined);
    await this.sqs.send(new DeleteQueueCommand({ QueueUrl: this.queueUrl })).catch(() => undefined);
  }
}
