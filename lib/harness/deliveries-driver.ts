/**
 * The delivery campaign's view of the running DroneDelivery stack, from the target's outputs
 * (lib/choreography/stack.ts DroneDeliveryOutput): the delivery API for submissions, the consumer
 * queues for poison messages, a test subscriber of the delivery bus (a FIFO queue and a rule added
 * at run time through the EventBridge API, de-duplicating by eventId as any consumer must), and
 * read-only scans of the service tables for the checker (test-only), and deliveries accepted past
 * the door, written to the ingestion table by submit-delivery's own adapter.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient, PutRuleCommand, PutTargetsCommand } from '@aws-sdk/client-eventbridge';
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  SendMessageCommand,
  SetQueueAttributesCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, paginateScan } from '@aws-sdk/lib-dynamodb';
import {
  LIFECYCLE_EVENT_TYPES,
  lifecyclePattern,
  type SubmitDeliveryRequest,
} from '../../lambdas/choreography/contracts';
import { describeError } from '../../lambdas/shared/errors';
import { serviceSendPolicy } from '../../lambdas/shared/service-send-policy';
import { asActivity, type LocalTarget, type RuntimeClock } from '../local-runtime';
import type {
  AssignmentItem,
  ChangeLogEntry,
  DeadLetterMarker,
  DeliveryItem,
  DroneSample,
  FaultedConsumer,
  IngestionItem,
  ObservedEvent,
  RemediationDecisionRecord,
} from './deliveries-snapshots';
import { harnessClient } from './harness-client';
import { drainQueue, type StackView, type SubmitOutcome, stackView, submitJson } from './orders-driver';
import { PastTheDoor } from './past-the-door';
import { pastTheDoorOutcome } from './past-the-door-outcome';

/** Output names of the DroneDelivery stack the campaign reads. */
const Output = {
  IngestionTableName: 'IngestionTableName',
  DroneSchedulerTableName: 'DroneSchedulerTableName',
  DeliveryTableName: 'DeliveryTableName',
  RemediationTableName: 'RemediationTableName',
  PackageQueueUrl: 'PackageQueueUrl',
  DroneSchedulerQueueUrl: 'DroneSchedulerQueueUrl',
  DeliveryQueueUrl: 'DeliveryQueueUrl',
  DeliveryBusName: 'DeliveryBusName',
  Requesters: 'Requesters',
} as const;

const QUEUE_OF: Readonly<Record<FaultedConsumer, string>> = {
  package: Output.PackageQueueUrl,
  'drone-scheduler': Output.DroneSchedulerQueueUrl,
  delivery: Output.DeliveryQueueUrl,
};

const OBSERVER_NAME = 'chaos-lifecycle-observer.fifo';

type Item = Record<string, unknown>;

export class DeliverySystemDriver {
  private readonly dynamo: DynamoDBClient;
  /** Scans come back unmarshalled (lib-dynamodb's document client). */
  private readonly documents: DynamoDBDocumentClient;
  private readonly sqs: SQSClient;
  private readonly events: EventBridgeClient;
  private readonly stack: StackView;
  private observerUrl: string | undefined;
  private door: PastTheDoor | undefined;
  /** API key values by key id (the target's, for this stack). */
  private readonly keyValues: Readonly<Record<string, string>>;

  /**
   * `clock`: the run's, when the driver is one of its actors: on a seeded clock every request it
   * sends waits its turn there (harnessClient, asActivity). @default - requests go at once
   */
  constructor(
    target: LocalTarget,
    stackName: string,
    private readonly clock?: RuntimeClock,
  ) {
    const config = { region: target.region, credentials: { ...target.credentials } };
    this.dynamo = harnessClient(
      new DynamoDBClient({ ...config, endpoint: target.endpoints.dynamodb }),
      clock,
    );
    this.documents = DynamoDBDocumentClient.from(this.dynamo);
    this.sqs = harnessClient(new SQSClient({ ...config, endpoint: target.endpoints.sqs }), clock);
    this.events = harnessClient(
      new EventBridgeClient({ ...config, endpoint: target.endpoints.events }),
      clock,
    );
    this.stack = stackView(target, stackName);
    this.keyValues = target.apis?.[stackName]?.apiKeyIds ?? {};
  }

  /** Every configured requester's id, in the Requesters output's order (the first's key is the stack's own). */
  get requesterIds(): readonly string[] {
    return this.pastTheDoor().requesters.map((requester) => requester.requesterId);
  }

  /** The API key value of a requester, from the target's keys by id. */
  private apiKeyOf(requesterId: string): string {
    const requester = this.pastTheDoor().requesters.find((entry) => entry.requesterId === requesterId);
    const value = requester === undefined ? undefined : this.keyValues[requester.apiKeyId];
    if (!value) {
      throw new Error(
        `Requester ${requesterId}: ${requester ? `the local target lists no API key ${requester.apiKeyId}` : 'not in the Requesters output'}`,
      );
    }
    return value;
  }

  private output(name: string): string {
    return this.stack.output(name);
  }

  /** The de-duplicating test subscriber: a FIFO queue (group = deliveryId) behind a rule on the bus. */
  async subscribeObserver(): Promise<void> {
    const { QueueUrl } = await this.sqs.send(
      new CreateQueueCommand({
        QueueName: OBSERVER_NAME,
        Attributes: { FifoQueue: 'true', ContentBasedDeduplication: 'true' },
      }),
    );
    if (!QueueUrl) throw new Error('CreateQueue returned no QueueUrl');
    const { Attributes } = await this.sqs.send(
      new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }),
    );
    const bus = this.output(Output.DeliveryBusName);
    const { RuleArn } = await this.events.send(
      new PutRuleCommand({
        Name: 'chaos-lifecycle-observer',
        EventBusName: bus,
        EventPattern: JSON.stringify(lifecyclePattern(LIFECYCLE_EVENT_TYPES)),
      }),
    );
    // The bus may deliver only to a queue whose policy lets EventBridge send for this rule, as on AWS.
    await this.sqs.send(
      new SetQueueAttributesCommand({
        QueueUrl,
        Attributes: {
          Policy: serviceSendPolicy(Attributes?.QueueArn ?? '', 'events.amazonaws.com', RuleArn),
        },
      }),
    );
    await this.events.send(
      new PutTargetsCommand({
        Rule: 'chaos-lifecycle-observer',
        EventBusName: bus,
        Targets: [
          {
            Id: 'observer',
            Arn: Attributes?.QueueArn,
            InputPath: '$.detail',
            SqsParameters: { MessageGroupId: 'lifecycle' },
          },
        ],
      }),
    );
    this.observerUrl = QueueUrl;
  }

  /** Takes what the observer queue holds, in arrival order. */
  async drainObserved(): Promise<ObservedEvent[]> {
    if (!this.observerUrl) return [];
    return drainQueue(this.sqs, this.observerUrl, (text) => {
      const body = JSON.parse(text) as Item;
      return {
        deliveryId: String(body.deliveryId),
        eventId: String(body.eventId),
        type: String(body.type),
        sequence: Number(body.sequence),
        producer: String(body.producer),
      };
    });
  }

  /**
   * POST /deliveries once, with the requester's own API key; the caller retries on transport
   * errors, 5xx and 429. @default requesterId - the first
   */
  submit(request: SubmitDeliveryRequest, requesterId?: string): Promise<SubmitOutcome> {
    const apiKey = requesterId === undefined ? this.stack.apiKey : this.apiKeyOf(requesterId);
    return asActivity(this.clock, `client submit ${request.deliveryId}`, (headers) =>
      submitJson(`${this.stack.apiBase}/deliveries`, request, apiKey, headers),
    );
  }

  /**
   * GET /deliveries/{deliveryId} once, with the requester's own API key: the HTTP status, or the
   * transport error's text.
   */
  readStatus(deliveryId: string, requesterId: string): Promise<number | string> {
    const apiKey = this.apiKeyOf(requesterId);
    return asActivity(this.clock, `client read ${deliveryId} as ${requesterId}`, async (headers) => {
      try {
        const response = await fetch(`${this.stack.apiBase}/deliveries/${encodeURIComponent(deliveryId)}`, {
          headers: { ...headers, 'x-api-key': apiKey },
        });
        await response.text();
        return response.status;
      } catch (error) {
        return describeError(error);
      }
    });
  }

  /**
   * Accepts a delivery past the door as the requester (past-the-door.ts), answered as the API
   * would have (pastTheDoorOutcome). The caller retries.
   */
  async acceptPastTheDoor(request: SubmitDeliveryRequest, requesterId?: string): Promise<SubmitOutcome> {
    const now = new Date(this.clock?.now() ?? Date.now());
    try {
      const outcome = await this.pastTheDoor().accept(
        request,
        `chaos-${request.deliveryId}`,
        now,
        requesterId,
      );
      return pastTheDoorOutcome(outcome, request.deliveryId);
    } catch (error) {
      return { kind: 'retry', reason: describeError(error), afterMillis: 500 };
    }
  }

  private pastTheDoor(): PastTheDoor {
    this.door ??= new PastTheDoor(
      this.documents,
      this.output(Output.IngestionTableName),
      this.output(Output.Requesters),
    );
    return this.door;
  }

  /** A poison message straight onto a consumer's FIFO queue. */
  async sendPoison(
    service: FaultedConsumer,
    body: string,
    groupId: string,
    deduplicationId: string,
  ): Promise<void> {
    await this.sqs.send(
      new SendMessageCommand({
        QueueUrl: this.output(QUEUE_OF[service]),
        MessageBody: body,
        MessageGroupId: groupId,
        MessageDeduplicationId: deduplicationId,
      }),
    );
  }

  /** The Delivery service's DELIVERY# items, with their updatedAt (epoch millis) when it parses. */
  async deliveryItems(): Promise<Array<DeliveryItem & { readonly updatedAt?: number }>> {
    const items = await this.scan(this.output(Output.DeliveryTableName));
    return items.flatMap((item) => {
      const id = stripPrefix(item.pk, 'DELIVERY#');
      if (!id) return [];
      const drone = item.drone as Item | undefined;
      const updatedAt = Date.parse(String(item.updatedAt));
      return [
        {
          ...(Number.isFinite(updatedAt) ? { updatedAt } : {}),
          deliveryId: id,
          status: String(item.status),
          sequence: Number(item.sequence ?? 0),
          outbox: changeLog(item.outbox),
          ...(typeof drone?.droneId === 'string' ? { droneId: drone.droneId } : {}),
        },
      ];
    });
  }

  async ingestionItems(): Promise<IngestionItem[]> {
    const items = await this.scan(this.output(Output.IngestionTableName));
    return items.flatMap((item) => {
      const id = stripPrefix(item.pk, 'DELIVERY#');
      if (!id) return [];
      const history = Array.isArray(item.history) ? (item.history as Item[]) : [];
      return [
        {
          deliveryId: id,
          status: String(item.status),
          history: history.map((entry) => ({
            type: String(entry.type),
            sequence: Number(entry.sequence),
            producer: String(entry.producer),
          })),
        },
      ];
    });
  }

  /** ASSIGNMENT# items and DRONE# items (the latter as a sample taken now). */
  async droneScheduler(now: number): Promise<{ assignments: AssignmentItem[]; drones: DroneSample[] }> {
    const items = await this.scan(this.output(Output.DroneSchedulerTableName));
    const assignments: AssignmentItem[] = [];
    const drones: DroneSample[] = [];
    for (const item of items) {
      const assigned = stripPrefix(item.pk, 'ASSIGNMENT#');
      const drone = stripPrefix(item.pk, 'DRONE#');
      if (assigned) {
        const window = item.window as { start?: string; end?: string } | undefined;
        assignments.push({
          deliveryId: assigned,
          status: String(item.status),
          ...(typeof item.droneId === 'string' ? { droneId: item.droneId } : {}),
          ...(window?.start && window.end ? { window: { start: window.start, end: window.end } } : {}),
        });
      } else if (drone) {
        const held = Array.isArray(item.assignments) ? (item.assignments as Item[]) : [];
        drones.push({
          droneId: drone,
          at: now,
          assignments: held.map((entry) => ({
            deliveryId: String(entry.deliveryId),
            start: String(entry.start),
            end: String(entry.end),
          })),
        });
      }
    }
    return { assignments, drones };
  }

  async remediation(): Promise<{ markers: DeadLetterMarker[]; decisions: RemediationDecisionRecord[] }> {
    const items = await this.scan(this.output(Output.RemediationTableName));
    const markers: DeadLetterMarker[] = [];
    const decisions: RemediationDecisionRecord[] = [];
    for (const item of items) {
      const key = stripPrefix(item.pk, 'DEADLETTER#');
      if (key)
        markers.push({
          key,
          ...(typeof item.deliveryId === 'string' ? { deliveryId: item.deliveryId } : {}),
        });
      const owner = stripPrefix(item.pk, 'REMEDIATION#');
      if (!owner) continue;
      for (const decision of Array.isArray(item.decisions) ? (item.decisions as Item[]) : []) {
        decisions.push({
          deliveryId: owner,
          deadLetterKey: String(decision.deadLetterKey),
          decision: String(decision.decision),
          reasonCode: String(decision.reasonCode),
          source: String(decision.source),
        });
      }
    }
    return { markers, decisions };
  }

  private async scan(table: string): Promise<Item[]> {
    const items: Item[] = [];
    for await (const page of paginateScan(
      { client: this.documents },
      { TableName: table, ConsistentRead: true },
    )) {
      items.push(...(page.Items ?? []));
    }
    return items;
  }

  close(): void {
    this.dynamo.destroy();
    this.sqs.destroy();
    this.events.destroy();
  }
}

function stripPrefix(pk: unknown, prefix: string): string | undefined {
  return typeof pk === 'string' && pk.startsWith(prefix) ? pk.slice(prefix.length) : undefined;
}

function changeLog(outbox: unknown): ChangeLogEntry[] {
  return (Array.isArray(outbox) ? (outbox as Item[]) : []).map((entry) => {
    const message = (entry.message ?? {}) as Item;
    return {
      id: String(entry.id),
      destination: String(entry.destination),
      type: String(message.type),
      sequence: Number(message.sequence),
    };
  });
}
