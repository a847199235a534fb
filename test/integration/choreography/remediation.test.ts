/**
 * The remediation handler on real dead-letter queues of the runtime's SQS service (messages put
 * there by the kit's dead-letterer, as the services put them, and received with their receipt
 * handles) and DynamoDB Local: deferral by visibility, one decision per dead letter, the change log
 * for the requests topic and the alert bus.
 */
import { randomUUID } from 'node:crypto';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import {
  ChoreographyEnvKey,
  type OutboxEntry,
  ReasonCode,
  type RemediationSettings,
  ServiceName,
} from '../../../lambdas/choreography/contracts';
import { SqsDeadLetterer } from '../../../lambdas/choreography/kit';
import { useChoreographyWorld, useServiceEnvironment } from './harness';
import {
  deliveryRequested,
  invoke,
  loadSqsHandler,
  receiveRecords,
  type SqsHandler,
} from './service-handlers';

const SETTINGS: RemediationSettings = {
  maxReceiveAttempts: 3,
  processedMessageTtlSeconds: 3600,
  retryBaseSeconds: 1,
  retryMaxSeconds: 4,
};

describe('Remediation handler (DynamoDB Local, SQS service)', () => {
  const world = useChoreographyWorld();
  let handler: SqsHandler;
  let tableName: string;
  const dlqs: Record<string, string> = {};
  beforeAll(async () => {
    tableName = await world.table();
    for (const service of [ServiceName.Package, ServiceName.DroneScheduler, ServiceName.Delivery]) {
      dlqs[service] = await world.fifoQueue();
    }
    useServiceEnvironment(world, ServiceName.Remediation, {
      tableName,
      // Remediation dead-letters nothing; it reads the queues named below.
      deadLetterQueueUrl: dlqs[ServiceName.Package] as string,
      settings: SETTINGS,
    });
    process.env[ChoreographyEnvKey.DeadLetterQueueUrls] = JSON.stringify(dlqs);
    handler = await loadSqsHandler(() => import('../../../lambdas/choreography/handlers/remediation'));
  });

  const id = () => `d-${randomUUID().slice(0, 8)}`;
  const requested = (deliveryId: string) => JSON.stringify(deliveryRequested(deliveryId));

  async function deadLetter(
    source: ServiceName,
    body: string,
    reasonCode: ReasonCode,
    messageKey: string,
    deliveryId?: string,
  ) {
    const queueUrl = dlqs[source] as string;
    await new SqsDeadLetterer(world.sqs, queueUrl, source).send(
      { body, reasonCode, detail: 'test', messageKey, attempt: 1, ...(deliveryId ? { deliveryId } : {}) },
      new Date(),
    );
  }

  const receive = (source: ServiceName) => receiveRecords(world, dlqs[source] as string);

  async function receiveOne(source: ServiceName): Promise<SQSRecord> {
    const [record, ...more] = await receive(source);
    if (!record || more.length > 0)
      throw new Error(`expected one dead letter on ${source}, got ${more.length + (record ? 1 : 0)}`);
    return record;
  }

  const item = (key: string) => world.getItem(tableName, `REMEDIATION#${key}`);
  const outbox = async (key: string) => ((await item(key))?.outbox ?? []) as OutboxEntry[];
  const sleep = (millis: number) => new Promise((resolve) => setTimeout(resolve, millis));

  it('defers a RETRY by the back-off (the message stays invisible, nothing recorded), then decides it once', async () => {
    const deliveryId = id();
    const body = requested(deliveryId);
    await deadLetter(
      ServiceName.DroneScheduler,
      body,
      ReasonCode.NoDroneAvailable,
      `ingestion:${deliveryId}:1`,
      deliveryId,
    );

    const record = await receiveOne(ServiceName.DroneScheduler);
    expect(await invoke(handler, [record])).toEqual([record.messageId]);
    expect(await item(deliveryId)).toBeUndefined();
    // The deferral shortened the 30 s receive to the back-off's remaining second or so.
    expect(await receive(ServiceName.DroneScheduler)).toEqual([]);
    await sleep(1_200);
    // The deferred dead letter is back once its back-off has passed.
    const again = await receiveOne(ServiceName.DroneScheduler);
    expect(await invoke(handler, [again])).toEqual([]);

    const decided = await item(deliveryId);
    expect(decided).toMatchObject({
      occurrences: { 'drone-scheduler#NO_DRONE_AVAILABLE': 1 },
      decisions: [{ decision: 'RETRY', occurrence: 1, source: 'drone-scheduler' }],
      sequence: 1,
    });
    expect(await outbox(deliveryId)).toEqual([
      {
        id: `remediation:${deliveryId}:1`,
        destination: 'requests-topic',
        message: expect.objectContaining({
          type: 'RemediationDecided',
          correlationId: `corr-${deliveryId}`,
          data: expect.objectContaining({
            decision: 'RETRY',
            reasonCode: 'NO_DRONE_AVAILABLE',
            deadLetteredEventId: `ingestion:${deliveryId}:1`,
            retryOf: JSON.parse(body),
          }),
        }),
      },
    ]);
    // The same dead letter again (a redelivery): nothing is decided twice.
    expect(await invoke(handler, [again])).toEqual([]);
    expect(await item(deliveryId)).toEqual(decided);
  });

  it('two receives of one dead letter racing: exactly one decision', async () => {
    const deliveryId = id();
    await deadLetter(
      ServiceName.Package,
      requested(deliveryId),
      ReasonCode.PackageTooHeavy,
      `ingestion:${deliveryId}:1`,
      deliveryId,
    );
    const record = await receiveOne(ServiceName.Package);
    const failures = await Promise.all(Array.from({ length: 4 }, () => invoke(handler, [record])));
    expect(failures.flat()).toEqual([]);
    const decided = await item(deliveryId);
    expect(decided?.decisions).toEqual([expect.objectContaining({ decision: 'COMPENSATE' })]);
    expect((await outbox(deliveryId)).map((entry) => entry.message.type)).toEqual(['RemediationDecided']);
  });

  it('no reasonCode (the queue redrove it): RETRIES_EXHAUSTED; the second time GIVE_UP with an operator alert', async () => {
    const deliveryId = id();
    for (const attempt of [1, 2]) {
      // As a redrive leaves it: the original message, no attributes of the dead-letterer.
      await world.sqs.send(
        new SendMessageCommand({
          QueueUrl: dlqs[ServiceName.Delivery],
          MessageBody: requested(deliveryId).replace('"sequence":1', `"sequence":${attempt}`),
          MessageGroupId: deliveryId,
          MessageDeduplicationId: `redriven-${deliveryId}-${attempt}`,
        }),
      );
    }
    await sleep(1_100);
    const records = await receive(ServiceName.Delivery);
    expect(records).toHaveLength(2);
    expect(await invoke(handler, records)).toEqual([]);
    const decided = await item(deliveryId);
    expect(decided?.decisions).toEqual([
      expect.objectContaining({ decision: 'RETRY', reasonCode: 'RETRIES_EXHAUSTED', occurrence: 1 }),
      expect.objectContaining({ decision: 'GIVE_UP', reasonCode: 'RETRIES_EXHAUSTED', occurrence: 2 }),
    ]);
    const entries = await outbox(deliveryId);
    expect(entries.map((entry) => [entry.destination, entry.message.type ?? entry.message.decision])).toEqual(
      [
        ['requests-topic', 'RemediationDecided'],
        ['requests-topic', 'RemediationDecided'],
        ['alert-bus', 'GIVE_UP'],
      ],
    );
    expect(entries[2]?.message).toMatchObject({
      deliveryId,
      source: 'delivery',
      reasonCode: 'RETRIES_EXHAUSTED',
    });
    expect(decided?.sequence).toBe(2);
  });

  it('poison names no delivery: an ALERT on the alert bus only, under REMEDIATION#-unattributed', async () => {
    const messageKey = randomUUID();
    await deadLetter(ServiceName.Package, 'not json at all', ReasonCode.Poison, messageKey);
    const records = await receive(ServiceName.Package);
    expect(await invoke(handler, records)).toEqual([]);
    const entries = await outbox('-unattributed');
    expect(entries.map((entry) => entry.destination)).toEqual(['alert-bus']);
    expect(entries[0]?.message).toMatchObject({ decision: 'ALERT', reasonCode: 'POISON', source: 'package' });
  });

  it('a record from a queue it was not given fails (and is not decided)', async () => {
    const deliveryId = id();
    await deadLetter(
      ServiceName.Package,
      requested(deliveryId),
      ReasonCode.PackageTooHeavy,
      `x:${deliveryId}`,
      deliveryId,
    );
    const record = await receiveOne(ServiceName.Package);
    const stray = { ...record, eventSourceARN: 'arn:aws:sqs:us-east-1:123456789012:someone-else.fifo' };
    expect(await invoke(handler, [stray])).toEqual([record.messageId]);
    expect(await item(deliveryId)).toBeUndefined();
  });
});
