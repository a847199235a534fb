/**
 * Publishes one change log entry to its destination (contracts/outbox.ts): the requests topic (SNS
 * FIFO), the delivery queue (SQS FIFO), the delivery bus or the alert bus (EventBridge). Each
 * destination's name comes from DESTINATION_ENV_KEY; a relay only has the variables of the
 * destinations its table's services emit to, so a missing one is named when an entry needs it.
 *
 * It holds the clients of those destinations only (./outbox-clients), and requires each SDK module
 * for its commands where it sends: a relay that never publishes to a topic never loads the SNS
 * client's module, several milliseconds of a relay's cold init each (bench figure `functions`).
 */
import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import type { SNSClient } from '@aws-sdk/client-sns';
import type { SQSClient } from '@aws-sdk/client-sqs';
import {
  DELIVERY_ALERT_DETAIL_TYPE,
  DELIVERY_ALERT_SOURCE,
  DESTINATION_ENV_KEY,
  OutboxDestination as Destination,
  eventSourceOf,
  type OutboxDestination,
  type OutboxEntry,
  type ServiceName,
} from '../contracts';
import { fifoKeysOf, messageAttributesOf, type PublishedAttribute } from '../domain/relay';

export interface OutboxPublisher {
  publish(entry: OutboxEntry): Promise<void>;
}

/** The client of each kind of destination; absent where the publisher has no such destination. */
export interface PublisherClients {
  readonly sns?: SNSClient;
  readonly sqs?: SQSClient;
  readonly eventBridge?: EventBridgeClient;
}

export class AwsOutboxPublisher implements OutboxPublisher {
  constructor(
    private readonly clients: PublisherClients,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {}

  async publish(entry: OutboxEntry): Promise<void> {
    const target = this.destinationName(entry);
    const body = JSON.stringify(entry.message);
    // Required where used (a module already loaded when its client was made: a cache hit).
    switch (entry.destination) {
      case Destination.RequestsTopic: {
        const { PublishCommand } = require('@aws-sdk/client-sns') as typeof import('@aws-sdk/client-sns');
        await this.clientOf(entry, 'sns').send(
          new PublishCommand({ TopicArn: target, Message: body, ...fifoFieldsOf(entry) }),
        );
        return;
      }
      case Destination.DeliveryQueue: {
        const { SendMessageCommand } = require('@aws-sdk/client-sqs') as typeof import('@aws-sdk/client-sqs');
        await this.clientOf(entry, 'sqs').send(
          new SendMessageCommand({ QueueUrl: target, MessageBody: body, ...fifoFieldsOf(entry) }),
        );
        return;
      }
      case Destination.DeliveryBus:
        return this.putEvent(target, eventSourceOf(entry.message.producer as ServiceName), entry, body);
      case Destination.AlertBus:
        return this.putEvent(target, DELIVERY_ALERT_SOURCE, entry, body, DELIVERY_ALERT_DETAIL_TYPE);
    }
  }

  private clientOf<K extends keyof PublisherClients>(
    entry: OutboxEntry,
    kind: K,
  ): NonNullable<PublisherClients[K]> {
    const client = this.clients[kind];
    if (!client) {
      throw new Error(
        `Outbox entry ${entry.id} goes to ${entry.destination}, but this publisher has no ${kind} client`,
      );
    }
    return client as NonNullable<PublisherClients[K]>;
  }

  private destinationName(entry: OutboxEntry): string {
    const key = DESTINATION_ENV_KEY[entry.destination as OutboxDestination];
    const value = this.env[key];
    if (!value) {
      throw new Error(
        `Outbox entry ${entry.id} goes to ${entry.destination}, but ${key} is not set on this relay`,
      );
    }
    return value;
  }

  /** PutEvents reports a refused entry in its answer, not as an error: that is a failure too. */
  private async putEvent(
    busName: string,
    source: string,
    entry: OutboxEntry,
    detail: string,
    detailType: string = String(entry.message.type),
  ): Promise<void> {
    const { PutEventsCommand } =
      require('@aws-sdk/client-eventbridge') as typeof import('@aws-sdk/client-eventbridge');
    const result = await this.clientOf(entry, 'eventBridge').send(
      new PutEventsCommand({
        Entries: [{ EventBusName: busName, Source: source, DetailType: detailType, Detail: detail }],
      }),
    );
    if ((result.FailedEntryCount ?? 0) > 0) {
      const failed = result.Entries?.find((answer) => answer.ErrorCode);
      throw new Error(
        `PutEvents refused outbox entry ${entry.id} to ${busName}: ${failed?.ErrorCode ?? 'unknown'} ${failed?.ErrorMessage ?? ''}`.trim(),
      );
    }
  }
}

/** SNS Publish and SQS SendMessage spell FIFO keys and message attributes the same way. */
function fifoFieldsOf(entry: OutboxEntry) {
  const { groupId, deduplicationId } = fifoKeysOf(entry);
  return {
    MessageGroupId: groupId,
    MessageDeduplicationId: deduplicationId,
    MessageAttributes: attributesFor(entry),
  };
}

function attributesFor(entry: OutboxEntry): Record<string, { DataType: string; StringValue: string }> {
  return Object.fromEntries(
    Object.entries(messageAttributesOf(entry.message)).map(
      ([name, attribute]: [string, PublishedAttribute]) => [
        name,
        { DataType: attribute.dataType, StringValue: attribute.value },
      ],
    ),
  );
}
