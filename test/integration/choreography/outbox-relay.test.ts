/**
 * The outbox relay on real stream records: commits through the kit's store on DynamoDB Local, the
 * table's stream read with the Streams API, entries published to a FIFO queue of the runtime's SQS
 * service. SNS and EventBridge have no local endpoint on this branch (the runtime's SNS has no API
 * of its own), so the requests topic is a small SNS Query-protocol endpoint in this test and the
 * buses the scripted AWS JSON endpoint (test/support/aws-json-endpoint.ts); both record what the
 * real SDK clients sent.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SNSClient } from '@aws-sdk/client-sns';
import { AwsOutboxPublisher } from '../../../lambdas/choreography/adapters/outbox-publisher';
import { outboxRelay } from '../../../lambdas/choreography/adapters/outbox-relay';
import {
  ChoreographyEnvKey,
  DELIVERY_ALERT_DETAIL_TYPE,
  DELIVERY_ALERT_SOURCE,
  type DeliveryAlert,
  EventType,
  MessageAttribute,
  OutboxDestination,
  ReasonCode,
  RemediationDecision,
  ServiceName,
} from '../../../lambdas/choreography/contracts';
import { DynamoServiceStore, type Emission, emission } from '../../../lambdas/choreography/kit';
import { type AwsJsonEndpoint, startAwsJsonEndpoint } from '../../support/aws-json-endpoint';
import { TEST_CREDENTIALS, TEST_REGION, tableStreamRecords } from '../../support/emulators';
import { type ChoreographyWorld, startChoreographyWorld, testObservability } from './harness';

/** SNS speaks the Query protocol: a form-encoded POST answered with XML. */
async function startSnsEndpoint() {
  const publishes: URLSearchParams[] = [];
  let failing = false;
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      const params = new URLSearchParams(body);
      if (failing) {
        response.writeHead(500, { 'Content-Type': 'text/xml' });
        response.end(
          '<ErrorResponse><Error><Type>Receiver</Type><Code>InternalError</Code><Message>down</Message></Error><RequestId>r</RequestId></ErrorResponse>',
        );
        return;
      }
      publishes.push(params);
      response.writeHead(200, { 'Content-Type': 'text/xml' });
      response.end(
        `<PublishResponse xmlns="http://sns.amazonaws.com/doc/2010-03-31/"><PublishResult><MessageId>m${publishes.length}</MessageId><SequenceNumber>${publishes.length}</SequenceNumber></PublishResult><ResponseMetadata><RequestId>r</RequestId></ResponseMetadata></PublishResponse>`,
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    publishes,
    /** Answer every Publish with a 500 (the SDK's own retries see it too) until told otherwise. */
    setFailing: (value: boolean) => {
      failing = value;
    },
    /** The message attributes of a Publish, by name (MessageAttributes.entry.N.Name/Value.*). */
    attributesOf: (params: URLSearchParams) => {
      const attributes: Record<string, string> = {};
      for (let n = 1; params.has(`MessageAttributes.entry.${n}.Name`); n += 1) {
        attributes[params.get(`MessageAttributes.entry.${n}.Name`) ?? ''] =
          params.get(`MessageAttributes.entry.${n}.Value.StringValue`) ?? '';
      }
      return attributes;
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('outbox relay', () => {
  let world: ChoreographyWorld;
  let sns: Awaited<ReturnType<typeof startSnsEndpoint>>;
  let events: AwsJsonEndpoint;
  beforeAll(async () => {
    world = await startChoreographyWorld();
    sns = await startSnsEndpoint();
    events = await startAwsJsonEndpoint();
  });
  afterAll(async () => {
    await sns.stop();
    await events.stop();
    await world.stop();
  });

  const credentials = { region: TEST_REGION, credentials: TEST_CREDENTIALS };

  async function setUp(env: Partial<Record<ChoreographyEnvKey, string>>) {
    const tableName = await world.table();
    const store = new DynamoServiceStore(world.documents, tableName, 3600);
    const publisher = new AwsOutboxPublisher(
      {
        sns: new SNSClient({ endpoint: sns.endpoint, ...credentials }),
        sqs: world.sqs,
        eventBridge: new EventBridgeClient({ endpoint: events.endpoint, ...credentials }),
      },
      env,
    );
    const relay = outboxRelay({ publisher, observability: testObservability('relay') });
    const commit = async (
      deliveryId: string,
      emissions: Emission[],
      options: { producer?: ServiceName; alerts?: DeliveryAlert[] } = {},
    ) => {
      const key = `DELIVERY#${deliveryId}`;
      const outcome = await store.commit({
        key,
        read: await store.load(key),
        change: {
          state: { n: Date.now() },
          emissions,
          ...(options.alerts ? { alerts: options.alerts } : {}),
          producer: options.producer ?? ServiceName.Delivery,
          deliveryId,
          correlationId: `c-${deliveryId}`,
        },
        now: new Date(),
      });
      if (outcome.kind !== 'committed') throw new Error(`commit ${outcome.kind}`);
    };
    const streamRecords = () => tableStreamRecords(world.dynamoEndpoint, tableName);
    return { relay, commit, streamRecords };
  }

  const progress = (n: number) =>
    emission(OutboxDestination.DeliveryQueue, EventType.PackageReady, {
      packages: [{ packageId: `p${n}`, weightGrams: n, size: 'SMALL' }] as never,
      totalWeightGrams: n,
    });

  it('sends each new entry once, in order, to the FIFO queue with group, dedup id and attributes', async () => {
    const queueUrl = await world.fifoQueue();
    const { relay, commit, streamRecords } = await setUp({ [ChoreographyEnvKey.DeliveryQueueUrl]: queueUrl });
    await commit('d-q', [progress(1), progress(2)]);
    await commit('d-q', [progress(3)]);
    const records = await streamRecords();
    expect(records).toHaveLength(2);
    expect(await relay({ Records: records })).toEqual({ batchItemFailures: [] });
    const messages = await world.drain(queueUrl);
    expect(messages.map((message) => JSON.parse(message.Body ?? '{}').sequence)).toEqual([1, 2, 3]);
    const [first] = messages;
    expect(first?.Attributes).toMatchObject({
      MessageGroupId: 'd-q',
      MessageDeduplicationId: 'delivery:d-q:1',
    });
    expect(first?.MessageAttributes?.[MessageAttribute.Type]).toMatchObject({
      DataType: 'String',
      StringValue: EventType.PackageReady,
    });
    expect(first?.MessageAttributes?.[MessageAttribute.SchemaVersion]).toMatchObject({
      DataType: 'Number',
      StringValue: '1',
    });
    expect(first?.MessageAttributes?.[MessageAttribute.CorrelationId]?.StringValue).toBe('c-d-q');
  });

  it('publishes to the requests topic with FIFO keys and the filter attributes', async () => {
    const { relay, commit, streamRecords } = await setUp({
      [ChoreographyEnvKey.RequestsTopicArn]: 'arn:aws:sns:us-east-1:123456789012:requests.fifo',
    });
    await commit(
      'd-sns',
      [
        emission(OutboxDestination.RequestsTopic, EventType.RemediationDecided, {
          decision: RemediationDecision.Retry,
          reasonCode: 'NO_DRONE_AVAILABLE',
          source: ServiceName.DroneScheduler,
          occurrence: 1,
          deadLetteredEventId: 'drone-scheduler:d-sns:1',
          detail: 'busy',
        }),
      ],
      { producer: ServiceName.Remediation },
    );
    const before = sns.publishes.length;
    expect(await relay({ Records: await streamRecords() })).toEqual({ batchItemFailures: [] });
    const [publish] = sns.publishes.slice(before);
    expect(publish?.get('Action')).toBe('Publish');
    expect(publish?.get('TopicArn')).toBe('arn:aws:sns:us-east-1:123456789012:requests.fifo');
    expect(publish?.get('MessageGroupId')).toBe('d-sns');
    expect(publish?.get('MessageDeduplicationId')).toBe('remediation:d-sns:1');
    expect(JSON.parse(publish?.get('Message') ?? '{}')).toMatchObject({ type: EventType.RemediationDecided });
    expect(sns.attributesOf(publish ?? new URLSearchParams())).toEqual({
      [MessageAttribute.Type]: EventType.RemediationDecided,
      [MessageAttribute.SchemaVersion]: '1',
      [MessageAttribute.CorrelationId]: 'c-d-sns',
      [MessageAttribute.Source]: ServiceName.DroneScheduler,
      [MessageAttribute.Decision]: RemediationDecision.Retry,
    });
  });

  it('puts lifecycle events and alerts on their buses, and fails the record whose entry is refused', async () => {
    const { relay, commit, streamRecords } = await setUp({
      [ChoreographyEnvKey.DeliveryBusName]: 'delivery-bus',
      [ChoreographyEnvKey.AlertBusName]: 'alert-bus',
    });
    const alert = {
      alertId: 'alert-d-bus-1',
      deliveryId: 'd-bus',
      reasonCode: ReasonCode.SchemaInvalid,
      decision: RemediationDecision.GiveUp,
      source: ServiceName.Package,
      detail: 'bad',
      raisedAt: new Date().toISOString(),
    };
    await commit(
      'd-bus',
      [emission(OutboxDestination.DeliveryBus, EventType.PickedUp, { droneId: 'drone-1' })],
      {
        alerts: [alert],
      },
    );
    await commit('d-bus', [
      emission(OutboxDestination.DeliveryBus, EventType.Delivered, { droneId: 'drone-1' }),
    ]);
    // EventBridge refuses Delivered entries in its answer (FailedEntryCount), not with an error.
    events.respondWith((call) => {
      const [entry] = call.body.Entries as { DetailType: string }[];
      return entry?.DetailType === EventType.Delivered
        ? { result: { FailedEntryCount: 1, Entries: [{ ErrorCode: 'InternalFailure', ErrorMessage: 'x' }] } }
        : { result: { FailedEntryCount: 0, Entries: [{ EventId: 'e' }] } };
    });
    const before = events.callsTo('PutEvents').length;
    const records = await streamRecords();
    const result = await relay({ Records: records }).finally(() => events.respondWith(() => undefined));
    expect(result.batchItemFailures).toEqual([{ itemIdentifier: records[1]?.dynamodb?.SequenceNumber }]);
    const puts = events
      .callsTo('PutEvents')
      .slice(before)
      .map((call) => (call.body.Entries as unknown[])[0]);
    expect(puts).toEqual([
      expect.objectContaining({
        EventBusName: 'delivery-bus',
        Source: 'drone-delivery.delivery',
        DetailType: EventType.PickedUp,
      }),
      expect.objectContaining({
        EventBusName: 'alert-bus',
        Source: DELIVERY_ALERT_SOURCE,
        DetailType: DELIVERY_ALERT_DETAIL_TYPE,
      }),
      expect.objectContaining({ DetailType: EventType.Delivered }),
    ]);
    // DynamoDB keeps no key order: compare the JSON's content.
    expect(JSON.parse((puts[1] as { Detail: string }).Detail)).toEqual(alert);
  });

  it('stops at the first failed record so no later record overtakes it', async () => {
    const queueUrl = await world.fifoQueue();
    const { relay, commit, streamRecords } = await setUp({
      [ChoreographyEnvKey.DeliveryQueueUrl]: queueUrl,
      [ChoreographyEnvKey.RequestsTopicArn]: 'arn:aws:sns:us-east-1:123456789012:requests.fifo',
    });
    await commit('d-stop', [progress(1)]);
    await commit('d-stop', [
      emission(OutboxDestination.RequestsTopic, EventType.DeliveryRequested, {
        ownerId: 'o',
        pickup: { lat: 0, lon: 0 },
        dropoff: { lat: 0, lon: 0 },
        packages: [{ packageId: 'p', weightGrams: 1, size: 'SMALL' }] as never,
      }),
    ]);
    await commit('d-stop', [progress(3)]);
    const records = await streamRecords();
    sns.setFailing(true);
    const result = await relay({ Records: records }).finally(() => sns.setFailing(false));
    expect(result.batchItemFailures).toEqual([{ itemIdentifier: records[1]?.dynamodb?.SequenceNumber }]);
    const sent = await world.drain(queueUrl);
    expect(sent.map((message) => JSON.parse(message.Body ?? '{}').sequence)).toEqual([1]);
  });

  it('fails the record, naming the variable, when an entry goes to a destination the relay was not given', async () => {
    const { relay, commit, streamRecords } = await setUp({});
    await commit('d-missing', [progress(1)]);
    const records = await streamRecords();
    const publisher = new AwsOutboxPublisher(
      { sns: {} as never, sqs: world.sqs, eventBridge: {} as never },
      {},
    );
    expect((await relay({ Records: records })).batchItemFailures).toEqual([
      { itemIdentifier: records[0]?.dynamodb?.SequenceNumber },
    ]);
    await expect(
      publisher.publish({
        id: 'x',
        destination: OutboxDestination.DeliveryQueue,
        message: { deliveryId: 'd' },
      }),
    ).rejects.toThrow(
      `Outbox entry x goes to delivery-queue, but ${ChoreographyEnvKey.DeliveryQueueUrl} is not set`,
    );
  });
});
