/**
 * The alert outbox end to end on DynamoDB Local and its real stream (DESIGN.md, Alert outbox): the
 * supervisor's transition into Error writes the alert into the record; the real status-notifier
 * handler (the relay) gets the table's stream records as Lambda's event source would deliver them
 * (retried while it reports the record failed, then given up); the real supervisor handler
 * re-delivers what the relay left; the alert bus is the scripted EventBridge endpoint (down: every
 * PutEvents answers FailedEntryCount 1), and every event it accepted is handed, as its rule would, to
 * the real alert-archiver handler with a new event id each, so the archive shows what an operator
 * would see.
 */
import { randomUUID } from 'node:crypto';
import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBBatchResponse, DynamoDBRecord } from 'aws-lambda';
import {
  ALERT_EVENT_SOURCE,
  AlertArchiveAttr,
  AlertType,
  alertIdFor,
  EnvKey,
  StateAttr,
} from '../../../../lambdas/scheduler-agent-supervisor/contracts';
import {
  buildInitialStateRecord,
  type StateRecord,
} from '../../../../lambdas/scheduler-agent-supervisor/domain/state-record';
import type { SupervisorRunSummary } from '../../../../lambdas/scheduler-agent-supervisor/domain/supervisor';
import type { RecordedCall } from '../../../support/aws-json-endpoint';
import {
  type ArchiverHandler,
  type CoreResources,
  createAlertArchiveTable,
  createResources,
  HANDLERS,
  handlerEnv,
  lambdaContext,
  loadHandler,
  putStateRecord,
  type StreamHandler,
  type SupervisorHandler,
  sleep,
  stateItem,
  stateStreamRecords,
  useCoreWorld,
} from './harness';

const NOTIFIER = require.resolve('../../../../lambdas/scheduler-agent-supervisor/handlers/status-notifier');
const ARCHIVER = require.resolve('../../../../lambdas/scheduler-agent-supervisor/handlers/alert-archiver');
/** The smallest grace the timings allow: the backstop may re-deliver one second after the write. */
const GRACE_SECONDS = 1;

const world = useCoreWorld();

interface Setup {
  readonly resources: CoreResources;
  readonly archiveTable: string;
  readonly supervise: () => Promise<SupervisorRunSummary>;
  /** A fresh relay container (the status notifier). */
  readonly relay: () => (records: DynamoDBRecord[]) => Promise<DynamoDBBatchResponse>;
  /** Hands every PutEvents the bus accepted since the last call to the archiver, as the rule does. */
  readonly archiveAccepted: () => Promise<void>;
  readonly bus: { up: boolean };
}

async function setUp(): Promise<Setup> {
  const resources = await createResources(world, { stateStream: true });
  const archiveTable = await createAlertArchiveTable(world);
  const env = handlerEnv(resources, {
    timings: { alertRedeliveryGraceSeconds: GRACE_SECONDS },
    env: { [EnvKey.AlertArchiveTableName]: archiveTable },
  });
  const bus = { up: true };
  const accepted: RecordedCall[] = [];
  world.events.calls.length = 0;
  world.events.respondWith((call) => {
    if (call.operation !== 'PutEvents') return undefined;
    if (!bus.up) {
      return {
        result: { FailedEntryCount: 1, Entries: [{ ErrorCode: 'InternalFailure', ErrorMessage: 'down' }] },
      };
    }
    accepted.push(call);
    return { result: { FailedEntryCount: 0, Entries: [{ EventId: randomUUID() }] } };
  });
  const archiver = loadHandler<{ handler: ArchiverHandler }>(ARCHIVER, env).handler;
  return {
    resources,
    archiveTable,
    supervise: () =>
      loadHandler<{ handler: SupervisorHandler }>(HANDLERS.supervisor, env).handler({}, lambdaContext()),
    relay: () => {
      const handler = loadHandler<{ handler: StreamHandler }>(NOTIFIER, env).handler;
      return (records) => handler({ Records: records }, lambdaContext());
    },
    archiveAccepted: async () => {
      for (const call of accepted.splice(0)) {
        for (const entry of (call.body.Entries ?? []) as Record<string, string>[]) {
          await archiver(
            {
              version: '0',
              id: randomUUID(),
              source: entry.Source as string,
              'detail-type': entry.DetailType as string,
              account: '000000000000',
              time: new Date().toISOString(),
              region: 'us-east-1',
              resources: [],
              detail: JSON.parse(entry.Detail as string),
            },
            lambdaContext(),
          );
        }
      }
    },
    bus,
  };
}

/** A Processing record whose last allowed attempt expired: the supervisor fails it (Error + alert). */
function doomedRecord(orderId: string, attempt = 3): StateRecord {
  return {
    ...buildInitialStateRecord({
      orderId,
      orderFingerprint: 'f'.repeat(64),
      now: Date.now() - 60_000,
      timings: { startGraceSeconds: 1 },
      dueShardCount: 4,
      retryBudget: 12,
      workflowVersion: 1,
    }),
    processState: 'Processing',
    lockedBy: `${orderId}--attempt-${attempt}`,
    attempt,
    failureCount: 2,
    completeBy: Date.now() - 1_000,
  };
}

/** The stream record of the transition into Error (the one carrying the outbox entry). */
async function errorRecord(setup: Setup, orderId: string): Promise<DynamoDBRecord> {
  const records = await stateStreamRecords(world, setup.resources);
  const found = records.find(
    (record) =>
      record.dynamodb?.NewImage?.[StateAttr.OrderId]?.S === orderId &&
      record.dynamodb?.NewImage?.[StateAttr.ProcessState]?.S === 'Error' &&
      record.dynamodb?.OldImage?.[StateAttr.ProcessState]?.S === 'Processing',
  );
  if (!found) throw new Error(`no stream record of ${orderId} entering Error`);
  return found;
}

async function archived(setup: Setup, orderId: string): Promise<Record<string, unknown>[]> {
  const { Items = [] } = await world.doc.send(
    new QueryCommand({
      TableName: setup.archiveTable,
      KeyConditionExpression: '#id = :id',
      ExpressionAttributeNames: { '#id': AlertArchiveAttr.OrderId },
      ExpressionAttributeValues: { ':id': orderId },
    }),
  );
  return Items;
}

describe('alert outbox: written with the state change, delivered at least once, archived once', () => {
  it('the bus down: the relay leaves the alert without failing the record, the supervisor delivers it once the bus is back, archived once', async () => {
    const setup = await setUp();
    const orderId = 'order-outage';
    const alertId = alertIdFor(orderId, AlertType.OrderFailed, 3);
    await putStateRecord(world, setup.resources, doomedRecord(orderId));
    setup.bus.up = false;
    expect(await setup.supervise()).toMatchObject({ failures: 1 });
    const record = await errorRecord(setup, orderId);

    // The relay cannot publish: the record is not failed (the client messages of the records after
    // it must not wait behind the alert bus, nor be dropped with it), the entry stays.
    expect(await setup.relay()([record])).toEqual({ batchItemFailures: [] });
    expect(world.events.callsTo('PutEvents')).toHaveLength(1);
    // Still down at the supervisor's next run: counted, kept.
    await sleep(GRACE_SECONDS * 1000 + 100);
    expect(await setup.supervise()).toMatchObject({ alertFailures: 1, alertsRedelivered: 0 });
    expect(Object.keys((await stateItem(world, setup.resources, orderId))?.AlertOutbox ?? {})).toEqual([
      alertId,
    ]);

    setup.bus.up = true;
    expect(await setup.supervise()).toMatchObject({ alertFailures: 0, alertsRedelivered: 1 });
    await setup.archiveAccepted();

    const item = await stateItem(world, setup.resources, orderId);
    expect(item?.AlertOutbox).toEqual({});
    expect(item).not.toHaveProperty(StateAttr.AlertOutboxShard);
    const alerts = await archived(setup, orderId);
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({
      [AlertArchiveAttr.Type]: AlertType.OrderFailed,
      [AlertArchiveAttr.AlertId]: alertId,
      [AlertArchiveAttr.Detail]: {
        alertId,
        orderId,
        reason: 'FailureThresholdReached',
        failureCount: 3,
        attempt: 3,
      },
    });
    // What the SNS topic receives is the whole event: its detail carries the alertId.
    const published = world.events.callsTo('PutEvents').at(-1)?.body.Entries as Record<string, string>[];
    expect(published[0]).toMatchObject({ Source: ALERT_EVENT_SOURCE, DetailType: AlertType.OrderFailed });
    expect(JSON.parse(published[0]?.Detail ?? '{}')).toMatchObject({ alertId });

    // A later run has nothing left to deliver.
    expect(await setup.supervise()).toMatchObject({ alertsRedelivered: 0, alertFailures: 0 });
  });

  it('a relay that fails after publishing, before removing: the supervisor publishes again, the archive keeps one', async () => {
    const setup = await setUp();
    const orderId = 'order-crash';
    await putStateRecord(world, setup.resources, doomedRecord(orderId));
    expect(await setup.supervise()).toMatchObject({ failures: 1 });
    const record = await errorRecord(setup, orderId);

    // The removal fails (as a container dying right after PutEvents would leave it): the entry stays.
    world.dynamo.beforeForward((call) =>
      call.operation === 'UpdateItem' &&
      String(call.body.UpdateExpression).startsWith('REMOVE #outbox.#alertId')
        ? { errorType: 'InternalServerError', message: 'the relay died here' }
        : undefined,
    );
    const response = await setup.relay()([record]);
    world.dynamo.beforeForward(undefined);
    expect(response).toEqual({ batchItemFailures: [] });
    await sleep(GRACE_SECONDS * 1000 + 100);
    expect(await setup.supervise()).toMatchObject({ alertFailures: 0, alertsRedelivered: 1 });

    await setup.archiveAccepted();
    expect(world.events.callsTo('PutEvents')).toHaveLength(2);
    expect(await archived(setup, orderId)).toHaveLength(1);
    expect((await stateItem(world, setup.resources, orderId))?.AlertOutbox).toEqual({});
  });

  it('concurrent deliverers (two relays and the supervisor): the archive keeps one, the outbox ends empty', async () => {
    const setup = await setUp();
    const orderId = 'order-race';
    await putStateRecord(world, setup.resources, doomedRecord(orderId));
    expect(await setup.supervise()).toMatchObject({ failures: 1 });
    const record = await errorRecord(setup, orderId);
    await sleep(GRACE_SECONDS * 1000 + 100);

    const [first, second, backstop] = await Promise.all([
      setup.relay()([record]),
      setup.relay()([record]),
      setup.supervise(),
    ]);
    expect(first).toEqual({ batchItemFailures: [] });
    expect(second).toEqual({ batchItemFailures: [] });
    expect(backstop.alertFailures).toBe(0);

    await setup.archiveAccepted();
    expect(await archived(setup, orderId)).toHaveLength(1);
    const item = await stateItem(world, setup.resources, orderId);
    expect(item?.AlertOutbox).toEqual({});
    expect(item).not.toHaveProperty(StateAttr.AlertOutboxShard);
  });

  it('later writes that only carry an alert already written publish nothing: one PutEvents per alert', async () => {
    const setup = await setUp();
    const orderId = 'order-carried';
    await putStateRecord(world, setup.resources, doomedRecord(orderId));
    expect(await setup.supervise()).toMatchObject({ failures: 1 });
    // Another writer touches the record before the relay removed the entry (as the admission
    // release does right after the transition): its stream record carries the entry too.
    await world.doc.send(
      new UpdateCommand({
        TableName: setup.resources.stateTable,
        Key: { [StateAttr.OrderId]: orderId },
        UpdateExpression: 'SET #touched = :now',
        ExpressionAttributeNames: { '#touched': 'TouchedByAnotherWriter' },
        ExpressionAttributeValues: { ':now': new Date().toISOString() },
      }),
    );
    const records = (await stateStreamRecords(world, setup.resources)).filter(
      (record) => record.dynamodb?.NewImage?.[StateAttr.OrderId]?.S === orderId,
    );
    const carrying = records.filter(
      (record) => Object.keys(record.dynamodb?.NewImage?.[StateAttr.AlertOutbox]?.M ?? {}).length > 0,
    );
    expect(carrying).toHaveLength(2);

    // One batch with both, then the carrier alone again (a later batch, another container).
    expect(await setup.relay()(records)).toEqual({ batchItemFailures: [] });
    expect(await setup.relay()([carrying[1] as DynamoDBRecord])).toEqual({ batchItemFailures: [] });
    expect(world.events.callsTo('PutEvents')).toHaveLength(1);
    await setup.archiveAccepted();
    expect(await archived(setup, orderId)).toHaveLength(1);
    expect((await stateItem(world, setup.resources, orderId))?.AlertOutbox).toEqual({});
  });

  it('a record claimed before the outbox existed (no AlertOutbox map) still gets its alert', async () => {
    const setup = await setUp();
    const orderId = 'order-legacy';
    await putStateRecord(world, setup.resources, doomedRecord(orderId));
    // The harness record has no AlertOutbox (as one claimed by the previous deployment).
    expect(await stateItem(world, setup.resources, orderId)).not.toHaveProperty(StateAttr.AlertOutbox);
    expect(await setup.supervise()).toMatchObject({ failures: 1, errors: 0 });
    expect(Object.keys((await stateItem(world, setup.resources, orderId))?.AlertOutbox ?? {})).toEqual([
      alertIdFor(orderId, AlertType.OrderFailed, 3),
    ]);
  });
});
