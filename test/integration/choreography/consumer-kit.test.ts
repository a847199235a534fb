/**
 * The consumer kit against DynamoDB Local and the runtime's SQS service: the single-item change log
 * commit (duplicate, conflict, atomicity), dead letters as remediation reads them, and the FIFO
 * runner's per-record and per-batch semantics.
 */
import type { SQSRecord } from 'aws-lambda';
import {
  DeliveryMetric,
  EventType,
  MessageAttribute,
  OutboxDestination,
  ReasonCode,
  ServiceName,
} from '../../../lambdas/choreography/contracts';
import {
  change,
  DynamoServiceStore,
  deadLetterDeduplicationId,
  emission,
  fifoConsumer,
  ignore,
  markerKeyOf,
  type Reaction,
  type ServiceItem,
  SqsDeadLetterer,
} from '../../../lambdas/choreography/kit';
import { envelope, lambdaContext, sqsRecord, testObservability, useChoreographyWorld } from './harness';

const SETTINGS = { maxReceiveAttempts: 3, processedMessageTtlSeconds: 3600 };
const PACKAGES = [{ packageId: 'p1', weightGrams: 1200, size: 'SMALL' }];

const requested = (deliveryId: string, extra: { eventId?: string } = {}) =>
  JSON.stringify(
    envelope(
      EventType.DeliveryRequested,
      { ownerId: 'o1', pickup: { lat: 1, lon: 1 }, dropoff: { lat: 1.1, lon: 1.1 }, packages: PACKAGES },
      { deliveryId, producer: ServiceName.Ingestion, ...extra },
    ),
  );

describe('choreography consumer kit', () => {
  const world = useChoreographyWorld();
  let tableName: string;
  let dlqUrl: string;
  let store: DynamoServiceStore;
  beforeEach(async () => {
    tableName = await world.table();
    dlqUrl = await world.fifoQueue();
    store = new DynamoServiceStore(world.documents, tableName, SETTINGS.processedMessageTtlSeconds);
  });

  /** A package-like service: READY unless told otherwise, counting how often it decided. */
  function consumer(
    react?: (current: ServiceItem | undefined) => Reaction<never> | Promise<Reaction<never>>,
  ) {
    const decisions: string[] = [];
    const handler = fifoConsumer(
      {
        service: ServiceName.Package,
        itemKeyOf: (event) => `PACKAGES#${event.deliveryId}`,
        react: async (current, event) => {
          decisions.push(event.eventId);
          if (react) return react(current);
          return change({ outcome: 'READY', correlationId: event.correlationId }, [
            emission(OutboxDestination.DeliveryQueue, EventType.PackageReady, {
              packages: PACKAGES as never,
              totalWeightGrams: 1200,
            }),
          ]);
        },
      },
      {
        store,
        deadLetterer: new SqsDeadLetterer(world.sqs, dlqUrl, ServiceName.Package),
        settings: SETTINGS,
        observability: testObservability('package'),
      },
    );
    const run = (...records: SQSRecord[]) => handler({ Records: records }, lambdaContext);
    return { run, decisions };
  }

  it('commits marker, state, change log and sequence in one transaction', async () => {
    const { run } = consumer();
    const result = await run(sqsRecord(requested('d-commit')));
    expect(result.batchItemFailures).toEqual([]);
    const item = await world.getItem(tableName, 'PACKAGES#d-commit');
    expect(item).toMatchObject({ outcome: 'READY', version: 1, sequence: 1 });
    expect(item?.outbox).toEqual([
      expect.objectContaining({ id: 'package:d-commit:1', destination: OutboxDestination.DeliveryQueue }),
    ]);
    const marker = await world.getItem(tableName, markerKeyOf('ingestion:d-commit:1'));
    expect(marker?.expiresAt).toBeGreaterThan(Date.now() / 1000 + 3000);
  });

  it('acks a duplicate without deciding again', async () => {
    const { run, decisions } = consumer();
    await run(sqsRecord(requested('d-dup')));
    const again = await run(sqsRecord(requested('d-dup')));
    expect(again.batchItemFailures).toEqual([]);
    expect(decisions).toEqual(['ingestion:d-dup:1']);
    expect(await world.getItem(tableName, 'PACKAGES#d-dup')).toMatchObject({ version: 1, sequence: 1 });
  });

  it("counts a change's counts once it is committed, and not again for a duplicate or an ignored event", async () => {
    const observability = testObservability('ingestion');
    const countBy = jest.spyOn(observability, 'countBy');
    const entered = {
      metric: DeliveryMetric.DeliveriesEnteredStatus,
      dimension: { name: 'status', value: 'Scheduled' },
    };
    const handler = fifoConsumer(
      {
        service: ServiceName.Package,
        itemKeyOf: (event) => `PACKAGES#${event.deliveryId}`,
        react: async (current) =>
          current === undefined ? change({ outcome: 'READY' }, [], { counts: [entered] }) : ignore('seen'),
      },
      {
        store,
        deadLetterer: new SqsDeadLetterer(world.sqs, dlqUrl, ServiceName.Package),
        settings: SETTINGS,
        observability,
      },
    );
    const run = (record: SQSRecord) => handler({ Records: [record] }, lambdaContext);
    await run(sqsRecord(requested('d-counted')));
    await run(sqsRecord(requested('d-counted')));
    await run(sqsRecord(requested('d-counted', { eventId: 'ingestion:d-counted:other' })));
    const counted = countBy.mock.calls.filter(
      ([metric]) => metric === DeliveryMetric.DeliveriesEnteredStatus,
    );
    expect(counted).toEqual([[entered.metric, entered.dimension]]);
  });

  it('re-sends the dead letter a duplicate recorded (the first delivery committed but never sent it)', async () => {
    const reason = { reasonCode: ReasonCode.PackageTooHeavy, detail: 'too heavy' };
    const committed = await store.commit({
      eventId: 'ingestion:d-resend:1',
      deadLetter: reason,
      key: 'PACKAGES#d-resend',
      read: undefined,
      change: {
        state: { outcome: 'REJECTED' },
        emissions: [],
        producer: ServiceName.Package,
        deliveryId: 'd-resend',
        correlationId: 'c',
      },
      now: new Date(),
    });
    expect(committed.kind).toBe('committed');
    const { run, decisions } = consumer();
    await run(sqsRecord(requested('d-resend')));
    expect(decisions).toEqual([]);
    const [letter, ...rest] = await world.drain(dlqUrl);
    expect(rest).toEqual([]);
    expect(letter?.MessageAttributes?.[MessageAttribute.ReasonCode]?.StringValue).toBe(
      ReasonCode.PackageTooHeavy,
    );
  });

  it('reports a stale read as a conflict and a taken marker as a duplicate', async () => {
    const base = {
      key: 'PACKAGES#d-race',
      change: {
        state: { outcome: 'READY' },
        emissions: [],
        producer: ServiceName.Package,
        deliveryId: 'd-race',
        correlationId: 'c',
      },
      now: new Date(),
    };
    expect((await store.commit({ ...base, eventId: 'e1', read: undefined })).kind).toBe('committed');
    // Created by e1 meanwhile: a writer that read "absent" loses.
    expect(await store.commit({ ...base, eventId: 'e2', read: undefined })).toEqual({ kind: 'conflict' });
    const read = await store.load('PACKAGES#d-race');
    if (!read) throw new Error('item missing');
    expect((await store.commit({ ...base, eventId: 'e3', read })).kind).toBe('committed');
    // Version 1 was read, the item is at 2 now.
    expect(await store.commit({ ...base, eventId: 'e4', read })).toEqual({ kind: 'conflict' });
    expect(await store.commit({ ...base, eventId: 'e1', read: await store.load(base.key) })).toEqual({
      kind: 'duplicate',
    });
    expect(await world.getItem(tableName, markerKeyOf('e2'))).toBeUndefined();
    expect(await world.getItem(tableName, markerKeyOf('e4'))).toBeUndefined();
  });

  it('writes nothing when an extra write condition fails, and names that write', async () => {
    const outcome = await store.commit({
      eventId: 'e-atomic',
      key: 'ASSIGNMENT#d-atomic',
      read: undefined,
      change: {
        state: { status: 'SCHEDULED' },
        emissions: [],
        producer: ServiceName.DroneScheduler,
        deliveryId: 'd-atomic',
        correlationId: 'c',
      },
      extraWrites: [
        {
          Update: {
            TableName: tableName,
            Key: { pk: 'DRONE#drone-1' },
            UpdateExpression: 'SET #v = :next',
            ConditionExpression: '#v = :read',
            ExpressionAttributeNames: { '#v': 'version' },
            ExpressionAttributeValues: { ':read': 7, ':next': 8 },
          },
        },
      ],
      now: new Date(),
    });
    expect(outcome).toEqual({ kind: 'conflict', extraWriteIndex: 0 });
    expect(await world.getItem(tableName, markerKeyOf('e-atomic'))).toBeUndefined();
    expect(await world.getItem(tableName, 'ASSIGNMENT#d-atomic')).toBeUndefined();
    expect(await world.getItem(tableName, 'DRONE#drone-1')).toBeUndefined();
  });

  it('decides again from a fresh read when a concurrent writer moved the item', async () => {
    let first = true;
    const { run, decisions } = consumer(async (current) => {
      if (first) {
        first = false;
        // Another writer commits between this read and the runner's commit.
        await store.commit({
          eventId: 'concurrent',
          key: 'PACKAGES#d-retry',
          read: current,
          change: {
            state: { outcome: 'OTHER' },
            emissions: [],
            producer: ServiceName.Package,
            deliveryId: 'd-retry',
            correlationId: 'c',
          },
          now: new Date(),
        });
      }
      return change({ outcome: 'READY', seenVersion: current?.version ?? 0 }, []);
    });
    const result = await run(sqsRecord(requested('d-retry')));
    expect(result.batchItemFailures).toEqual([]);
    expect(decisions).toHaveLength(2);
    expect(await world.getItem(tableName, 'PACKAGES#d-retry')).toMatchObject({
      outcome: 'READY',
      seenVersion: 1,
      version: 2,
    });
  });

  it('writes only the marker for an ignored event', async () => {
    const { run } = consumer(() => ignore('stale'));
    await run(sqsRecord(requested('d-ignore')));
    expect(await world.getItem(tableName, 'PACKAGES#d-ignore')).toBeUndefined();
    expect(await world.getItem(tableName, markerKeyOf('ingestion:d-ignore:1'))).toBeDefined();
  });

  it('dead-letters poison at once, with the attributes remediation reads', async () => {
    const { run, decisions } = consumer();
    const record = sqsRecord('not json', { receiveCount: 1 });
    expect((await run(record)).batchItemFailures).toEqual([]);
    expect(decisions).toEqual([]);
    const [letter] = await world.drain(dlqUrl);
    expect(letter?.Body).toBe('not json');
    expect(letter?.Attributes).toMatchObject({
      MessageGroupId: 'unattributed',
      MessageDeduplicationId: `${record.messageId}:POISON`,
    });
    const attributes = letter?.MessageAttributes ?? {};
    expect(attributes[MessageAttribute.ReasonCode]?.StringValue).toBe(ReasonCode.Poison);
    expect(attributes[MessageAttribute.DeadLetteredBy]?.StringValue).toBe(ServiceName.Package);
    expect(attributes[MessageAttribute.Attempt]?.StringValue).toBe('1');
    expect(Date.parse(attributes[MessageAttribute.DeadLetteredAt]?.StringValue ?? '')).not.toBeNaN();
  });

  it('dead-letters an unknown version and a business rejection, grouped by delivery', async () => {
    const rejected = consumer(() =>
      change({ outcome: 'REJECTED' }, [], {
        deadLetter: { reasonCode: ReasonCode.PackageTooHeavy, detail: 'too heavy' },
      }),
    );
    const future = JSON.stringify({ ...JSON.parse(requested('d-future')), schemaVersion: 99 });
    await rejected.run(sqsRecord(future), sqsRecord(requested('d-heavy'), { receiveCount: 2 }));
    const letters = await world.drain(dlqUrl);
    const byGroup = Object.fromEntries(letters.map((letter) => [letter.Attributes?.MessageGroupId, letter]));
    expect(byGroup['d-future']?.MessageAttributes?.[MessageAttribute.ReasonCode]?.StringValue).toBe(
      ReasonCode.UnknownVersion,
    );
    const heavy = byGroup['d-heavy'];
    expect(heavy?.Attributes?.MessageDeduplicationId).toBe('ingestion:d-heavy:1:PACKAGE_TOO_HEAVY');
    expect(heavy?.MessageAttributes?.[MessageAttribute.Attempt]?.StringValue).toBe('2');
    expect(heavy?.MessageAttributes?.[MessageAttribute.CorrelationId]?.StringValue).toBe('corr-d-heavy');
    const marker = await world.getItem(tableName, markerKeyOf('ingestion:d-heavy:1'));
    expect(marker?.deadLetter).toEqual({ reasonCode: ReasonCode.PackageTooHeavy, detail: 'too heavy' });
  });

  it('fails the record and every later one of the batch when a dependency fails', async () => {
    const { run, decisions } = consumer((current) => {
      if (decisions.length === 2) throw new Error('ProvisionedThroughputExceededException');
      return change({ outcome: 'READY', version: current?.version }, []);
    });
    const records = ['d-b1', 'd-b2', 'd-b3'].map((id) => sqsRecord(requested(id), { groupId: 'g' }));
    const result = await run(...records);
    expect(result.batchItemFailures).toEqual([
      { itemIdentifier: records[1]?.messageId },
      { itemIdentifier: records[2]?.messageId },
    ]);
    expect(decisions).toEqual(['ingestion:d-b1:1', 'ingestion:d-b2:1']);
    expect(await world.getItem(tableName, 'PACKAGES#d-b1')).toBeDefined();
    expect(await world.getItem(tableName, 'PACKAGES#d-b2')).toBeUndefined();
    expect(await world.drain(dlqUrl)).toEqual([]);
  });

  it('dead-letters DEPENDENCY_TIMEOUT and acks on the last allowed receive', async () => {
    const { run } = consumer(() => {
      throw new Error('RequestTimeout');
    });
    const record = sqsRecord(requested('d-timeout'), { receiveCount: SETTINGS.maxReceiveAttempts });
    expect((await run(record)).batchItemFailures).toEqual([]);
    const [letter] = await world.drain(dlqUrl);
    expect(letter?.MessageAttributes?.[MessageAttribute.ReasonCode]?.StringValue).toBe(
      ReasonCode.DependencyTimeout,
    );
    expect(letter?.Attributes?.MessageGroupId).toBe('d-timeout');
  });

  it('keeps dead-letter deduplication ids within SQS limits', () => {
    const long = 'x'.repeat(200);
    const id = deadLetterDeduplicationId(long, ReasonCode.SchemaInvalid);
    expect(id.length).toBeLessThanOrEqual(128);
    expect(id).toMatch(/^[0-9a-f]{64}:SCHEMA_INVALID$/);
    expect(deadLetterDeduplicationId('has space', ReasonCode.Poison)).not.toContain(' ');
  });
});
