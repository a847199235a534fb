import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  ALERT_OUTBOX_INDEX,
  ALERT_OUTBOX_SHARD,
  AlertType,
  alertIdFor,
  DUE_INDEX,
  EnvKey,
  OrderMetric,
  ProcessState,
  STATE_INDEX,
  StepStatus,
  type WorkflowTimings,
} from '../../../../lambdas/scheduler-agent-supervisor/contracts';
import { dueShardFor } from '../../../../lambdas/scheduler-agent-supervisor/domain/shard';
import {
  buildInitialStateRecord,
  type StateRecord,
} from '../../../../lambdas/scheduler-agent-supervisor/domain/state-record';
import type { SupervisorRunSummary } from '../../../../lambdas/scheduler-agent-supervisor/domain/supervisor';
import { captureStdout } from '../agents/harness';
import {
  BASE_TIMINGS,
  behaveLikeStepFunctions,
  type CoreResources,
  createResources,
  delayedMessageCount,
  drainBodies,
  HANDLERS,
  handlerEnv,
  lambdaContext,
  loadHandler,
  missingQueueUrl,
  putStateRecord,
  type SqsHandler,
  type SupervisorHandler,
  scanAll,
  sleep,
  sqsEvent,
  sqsRecord,
  stateItem,
  useCoreWorld,
} from './harness';

const world = useCoreWorld();

let resources: CoreResources;
beforeEach(async () => {
  resources = await createResources(world);
  world.events.calls.length = 0;
  world.events.respondWith(() => undefined);
  world.dynamo.beforeForward(undefined);
  world.dynamo.calls.length = 0;
});

function loadSupervisor(
  settings: { timings?: Partial<WorkflowTimings>; dueShardCount?: number; env?: Record<string, string> } = {},
): SupervisorHandler {
  return loadHandler<{ handler: SupervisorHandler }>(HANDLERS.supervisor, handlerEnv(resources, settings))
    .handler;
}

const SHARDS = 4;

/** A Processing record whose attempt passed its CompleteBy (the agent timed out or crashed). */
function expiredRecord(orderId: string, overrides: Partial<StateRecord> = {}): StateRecord {
  const attempt = overrides.attempt ?? (overrides.failureCount ?? 0) + 1;
  return {
    ...buildInitialStateRecord({
      workflowVersion: 1,
      orderId,
      orderFingerprint: 'f'.repeat(64),
      now: Date.now() - 60_000,
      timings: BASE_TIMINGS,
      dueShardCount: SHARDS,
      retryBudget: 12,
    }),
    processState: ProcessState.Processing,
    lockedBy: `${orderId}--attempt-${attempt}`,
    attempt,
    completeBy: Date.now() - 1_000,
    ...overrides,
  };
}

/** The sweeps' queries (each run also queries AlertOutboxIndex once, the gauges StateIndex after each sweep). */
const dueQueries = () =>
  world.dynamo.callsTo('Query').filter((call) => call.body.IndexName === DUE_INDEX.name);

/**
 * Supervisor traffic must be DueIndex queries, the outbox backstop's AlertOutboxIndex queries, the
 * gauges' StateIndex queries (by state), conditional updates and, before acting on a due record, the
 * read of its two versions only: never a Scan or a read of the whole record.
 */
function expectOnlyIndexQueriesAndConditionalUpdates(): void {
  const calls = world.dynamo.calls.filter((call) => call.body.TableName === resources.stateTable);
  expect(calls.length).toBeGreaterThan(0);
  for (const call of calls) {
    if (call.operation === 'Query' && call.body.IndexName === STATE_INDEX.name) {
      expect(String(call.body.KeyConditionExpression)).toMatch(/^#state = :state/);
    } else if (call.operation === 'Query' && call.body.IndexName === ALERT_OUTBOX_INDEX.name) {
      // Each run first looks for alerts the stream relay left behind (DESIGN.md, Alert outbox).
      expect(String(call.body.KeyConditionExpression)).toMatch(/= :shard AND .* < :before/);
    } else if (call.operation === 'Query') {
      expect(call.body.IndexName).toBe(DUE_INDEX.name);
      expect(String(call.body.KeyConditionExpression)).toMatch(/= :shard AND .* <= :now/);
    } else if (call.operation === 'GetItem') {
      expect(
        Object.values((call.body.ExpressionAttributeNames ?? {}) as Record<string, string>).sort(),
      ).toEqual(['SchemaVersion', 'WorkflowVersion']);
    } else {
      expect(call.operation).toBe('UpdateItem');
      expect(call.body.ConditionExpression).toEqual(expect.any(String));
    }
  }
  expect(world.dynamo.callsTo('Scan')).toEqual([]);
}

describe('supervisor: expired attempts', () => {
  it('resets an expired attempt to Pending with FailureCount+1, no lock, a new CompleteBy, and a delayed retry message', async () => {
    await putStateRecord(world, resources, expiredRecord('order-expired'));
    const supervise = loadSupervisor({ timings: { retryBackoffSeconds: 1 } });

    const before = Date.now();
    const summary = await supervise({}, lambdaContext());
    const after = Date.now();

    expect(summary).toMatchObject({
      resets: 1,
      failures: 0,
      restarts: 0,
      lostRaces: 0,
      errors: 0,
      sweeps: 1,
    });
    const record = await stateItem(world, resources, 'order-expired');
    expect(record).toMatchObject({
      ProcessState: 'Pending',
      FailureCount: 1,
      Attempt: 1,
      DueShard: dueShardFor('order-expired', SHARDS),
    });
    expect(record).not.toHaveProperty('LockedBy');
    // CompleteBy = end of the 1 s back-off + the 1 s start grace.
    expect(record?.CompleteBy).toBeGreaterThanOrEqual(before + 2_000);
    expect(record?.CompleteBy).toBeLessThanOrEqual(after + 2_000);

    // The retry message is held back for the back-off, then delivered.
    expect(await delayedMessageCount(world, resources.startQueueUrl)).toBe(1);
    expect(await drainBodies(world, resources.startQueueUrl)).toEqual([]);
    await sleep(1_200);
    expect(await drainBodies(world, resources.startQueueUrl)).toEqual([
      { orderId: 'order-expired', reason: 'supervisor-retry', correlationId: expect.any(String) },
    ]);
    expectOnlyIndexQueriesAndConditionalUpdates();
  });

  it('uses the extended back-off once FailureCount reaches extendedBackoffAfter', async () => {
    // extendedBackoffAfter = 2: the second failure gets the 3 s extended back-off, not the 0 s one.
    await putStateRecord(world, resources, expiredRecord('order-second-failure', { failureCount: 1 }));
    await putStateRecord(world, resources, expiredRecord('order-first-failure', { failureCount: 0 }));
    const supervise = loadSupervisor();

    const before = Date.now();
    expect(await supervise({}, lambdaContext())).toMatchObject({ resets: 2 });
    const after = Date.now();

    const second = await stateItem(world, resources, 'order-second-failure');
    expect(second).toMatchObject({ ProcessState: 'Pending', FailureCount: 2 });
    expect(second?.CompleteBy).toBeGreaterThanOrEqual(before + 3_000 + 1_000);
    expect(second?.CompleteBy).toBeLessThanOrEqual(after + 3_000 + 1_000);
    const first = await stateItem(world, resources, 'order-first-failure');
    expect(first).toMatchObject({ ProcessState: 'Pending', FailureCount: 1 });
    expect(first?.CompleteBy).toBeLessThanOrEqual(after + 0 + 1_000);

    // The first failure's retry is due at once; the second one's is delayed by its back-off.
    expect(await drainBodies(world, resources.startQueueUrl)).toEqual([
      { orderId: 'order-first-failure', reason: 'supervisor-retry', correlationId: expect.any(String) },
    ]);
    expect(await delayedMessageCount(world, resources.startQueueUrl)).toBe(1);
  });

  it('sets Error, leaves the index and writes exactly one OrderFailed alert into its outbox at maxFailures', async () => {
    await putStateRecord(world, resources, expiredRecord('order-doomed', { failureCount: 2, attempt: 3 }));
    const supervise = loadSupervisor();
    const context = lambdaContext();

    expect(await supervise({}, context)).toMatchObject({ failures: 1, resets: 0, alertFailures: 0 });

    const record = await stateItem(world, resources, 'order-doomed');
    expect(record).toMatchObject({
      ProcessState: 'Error',
      FailureCount: 3,
      Attempt: 3,
      LastError: {
        Source: 'supervisor',
        Error: 'FailureThresholdReached',
        Cause: expect.stringContaining('order-doomed--attempt-3'),
        At: expect.any(String),
      },
    });
    expect(record).not.toHaveProperty('LockedBy');
    expect(record).not.toHaveProperty('DueShard');

    // The alert is written with the transition (AlertOutbox); the relay, not the supervisor, publishes it.
    expect(world.events.callsTo('PutEvents')).toHaveLength(0);
    const alertId = alertIdFor('order-doomed', AlertType.OrderFailed, 3);
    expect(record?.AlertOutboxShard).toBe(ALERT_OUTBOX_SHARD);
    expect(record?.AlertOutbox).toEqual({
      [alertId]: {
        AlertId: alertId,
        Type: AlertType.OrderFailed,
        Reason: 'FailureThresholdReached',
        At: record?.UpdatedAt,
        Attempt: 3,
        FailureCount: 3,
        InstanceId: 'order-doomed--attempt-3',
        LastError: record?.LastError,
        CorrelationId: context.awsRequestId,
      },
    });
    expect(await drainBodies(world, resources.startQueueUrl)).toEqual([]);

    // A later run finds nothing: the failed order is out of the index, so it is never alerted twice.
    expect(await supervise({}, lambdaContext())).toMatchObject({ examined: 0 });
    expect(world.events.callsTo('PutEvents')).toHaveLength(0);
  });

  it('keeps the reset when the retry message cannot be sent; a later sweep re-queues the order', async () => {
    await putStateRecord(world, resources, expiredRecord('order-queue-down'));
    const broken = loadSupervisor({ env: { START_QUEUE_URL: missingQueueUrl(world) } });

    expect(await broken({}, lambdaContext())).toMatchObject({ resets: 1, startMessageFailures: 1 });
    expect(await stateItem(world, resources, 'order-queue-down')).toMatchObject({
      ProcessState: 'Pending',
      FailureCount: 1,
    });

    // Back-off 0 + start grace 1 s: once nobody has claimed it, a healthy supervisor re-queues it.
    await sleep(1_100);
    expect(await loadSupervisor()({}, lambdaContext())).toMatchObject({ restarts: 1 });
    expect(await drainBodies(world, resources.startQueueUrl)).toEqual([
      { orderId: 'order-queue-down', reason: 'supervisor-restart', correlationId: expect.any(String) },
    ]);
  });
});

describe('supervisor: records of a workflow version not live here', () => {
  it.each<[string, Partial<Pick<StateRecord, 'workflowVersion' | 'schemaVersion'>>]>([
    ['a future workflow version (99)', { workflowVersion: 99 }],
    ['a retired workflow version (live: 2 only)', { workflowVersion: 1 }],
    ['an unsupported schema version', { schemaVersion: 1 }],
  ])('leaves an expired record of %s untouched, sends nothing and counts it', async (_case, versions) => {
    const record = expiredRecord('order-unsupported', versions);
    await putStateRecord(world, resources, record);
    const before = await stateItem(world, resources, record.orderId);
    const live =
      versions.workflowVersion === 1
        ? { 2: 'arn:aws:states:us-east-1:000000000000:stateMachine:v2' }
        : undefined;
    const supervise = loadSupervisor({
      ...(live && { env: { [EnvKey.WorkflowStateMachines]: JSON.stringify(live) } }),
    });

    const summary = await supervise({}, lambdaContext());

    expect(summary).toMatchObject({ unsupportedVersions: 1, resets: 0, failures: 0, restarts: 0 });
    expect(await stateItem(world, resources, record.orderId)).toEqual(before);
    expect(await drainBodies(world, resources.startQueueUrl)).toEqual([]);
    expect(world.events.calls).toEqual([]);
  });
});

describe('supervisor: the step an expired attempt was running', () => {
  const running = (orderId: string, overrides: Partial<StateRecord> = {}) =>
    expiredRecord(orderId, {
      runningStep: 'ChargePayment',
      steps: {
        ReserveInventory: { status: StepStatus.Completed },
        ChargePayment: { status: StepStatus.Running, startedAt: 'earlier' },
        ScheduleShipping: { status: StepStatus.NotStarted },
      },
      ...overrides,
    });

  it('a reset marks the RunningStep TimedOut in the same update (its effect is uncertain)', async () => {
    await putStateRecord(world, resources, running('order-timed-out'));
    expect(await loadSupervisor()({}, lambdaContext())).toMatchObject({ resets: 1, lostRaces: 0 });
    const record = await stateItem(world, resources, 'order-timed-out');
    expect(record).toMatchObject({
      ProcessState: 'Pending',
      FailureCount: 1,
      Steps: {
        ReserveInventory: { Status: 'Completed' },
        ChargePayment: { Status: 'TimedOut', StartedAt: 'earlier', EndedAt: expect.any(String) },
        ScheduleShipping: { Status: 'NotStarted' },
      },
    });
    expect(record).not.toHaveProperty('RunningStep');
    expect(record).not.toHaveProperty('LockedBy');
    expectOnlyIndexQueriesAndConditionalUpdates();
  });

  it('a failure at maxFailures marks it TimedOut too, then Error', async () => {
    await putStateRecord(world, resources, running('order-timed-out-last', { failureCount: 2, attempt: 3 }));
    expect(await loadSupervisor()({}, lambdaContext())).toMatchObject({ failures: 1 });
    const record = await stateItem(world, resources, 'order-timed-out-last');
    expect(record).toMatchObject({ ProcessState: 'Error', Steps: { ChargePayment: { Status: 'TimedOut' } } });
    expect(record).not.toHaveProperty('RunningStep');
    expect(record).not.toHaveProperty('DueShard');
  });

  it('changes nothing when the step completed after the supervisor read the index (RunningStep removed, same CompleteBy)', async () => {
    await putStateRecord(world, resources, running('order-just-completed'));
    // MarkCompleted lands between the query and the update: it keeps the lock and CompleteBy.
    world.dynamo.beforeForward(async (call) => {
      if (call.operation === 'UpdateItem' && call.body.TableName === resources.stateTable) {
        world.dynamo.beforeForward(undefined);
        await world.doc.send(
          new UpdateCommand({
            TableName: resources.stateTable,
            Key: { OrderID: 'order-just-completed' },
            UpdateExpression: 'SET Steps.ChargePayment.#status = :completed REMOVE RunningStep',
            ExpressionAttributeNames: { '#status': 'Status' },
            ExpressionAttributeValues: { ':completed': 'Completed' },
          }),
        );
      }
      return undefined;
    });
    expect(await loadSupervisor()({}, lambdaContext())).toMatchObject({ lostRaces: 1, resets: 0 });
    const record = await stateItem(world, resources, 'order-just-completed');
    expect(record).toMatchObject({
      ProcessState: 'Processing',
      Steps: { ChargePayment: { Status: 'Completed' } },
    });
  });
});

describe('supervisor: compensation attempts', () => {
  /** A CompensationInProgress record whose compensation attempt passed its CompleteBy. */
  const compensating = (orderId: string, overrides: Partial<StateRecord> = {}) =>
    expiredRecord(orderId, {
      processState: ProcessState.CompensationInProgress,
      failureCount: 2,
      steps: {
        ReserveInventory: { status: StepStatus.Compensating },
        ChargePayment: { status: StepStatus.Failed },
        ScheduleShipping: { status: StepStatus.NotStarted },
      },
      ...overrides,
    });

  it('unlocks an expired compensation attempt below maxCompensationFailures, for the starter after a back-off', async () => {
    await putStateRecord(world, resources, compensating('order-undo-expired'));
    const before = Date.now();
    expect(await loadSupervisor()({}, lambdaContext())).toMatchObject({ resets: 1, failures: 0 });
    const after = Date.now();
    const record = await stateItem(world, resources, 'order-undo-expired');
    expect(record).toMatchObject({
      ProcessState: 'CompensationInProgress',
      CompensationFailureCount: 1,
      // FailureCount counts step attempts only.
      FailureCount: 2,
      DueShard: dueShardFor('order-undo-expired', SHARDS),
      Steps: { ReserveInventory: { Status: 'Compensating' } },
    });
    expect(record).not.toHaveProperty('LockedBy');
    // Back-off 0 s + start grace 1 s.
    expect(record?.CompleteBy).toBeGreaterThanOrEqual(before + 1_000);
    expect(record?.CompleteBy).toBeLessThanOrEqual(after + 1_000);
    expect(await drainBodies(world, resources.startQueueUrl)).toEqual([
      { orderId: 'order-undo-expired', reason: 'supervisor-retry', correlationId: expect.any(String) },
    ]);
    expectOnlyIndexQueriesAndConditionalUpdates();
  });

  it('ends CompensationFailed at maxCompensationFailures, out of the index, with exactly one CompensationFailed alert', async () => {
    await putStateRecord(
      world,
      resources,
      compensating('order-undo-doomed', { compensationFailureCount: 2, attempt: 5 }),
    );
    const context = lambdaContext();
    expect(await loadSupervisor()({}, context)).toMatchObject({ failures: 1, resets: 0, alertFailures: 0 });
    const record = await stateItem(world, resources, 'order-undo-doomed');
    expect(record).toMatchObject({
      ProcessState: 'CompensationFailed',
      CompensationFailureCount: 3,
      LastError: {
        Source: 'supervisor',
        Error: 'CompensationThresholdReached',
        Cause: expect.stringContaining('order-undo-doomed--attempt-5'),
      },
    });
    expect(record).not.toHaveProperty('LockedBy');
    expect(record).not.toHaveProperty('DueShard');
    expect(world.events.callsTo('PutEvents')).toHaveLength(0);
    const alertId = alertIdFor('order-undo-doomed', AlertType.CompensationFailed, 5);
    expect(record?.AlertOutbox).toEqual({
      [alertId]: {
        AlertId: alertId,
        Type: AlertType.CompensationFailed,
        Reason: 'CompensationThresholdReached',
        At: record?.UpdatedAt,
        Attempt: 5,
        CompensationFailureCount: 3,
        InstanceId: 'order-undo-doomed--attempt-5',
        LastError: record?.LastError,
        CorrelationId: context.awsRequestId,
      },
    });
    expect(await drainBodies(world, resources.startQueueUrl)).toEqual([]);
    // Out of the index: never alerted twice.
    expect(await loadSupervisor()({}, lambdaContext())).toMatchObject({ examined: 0 });
    expect(Object.keys((await stateItem(world, resources, 'order-undo-doomed'))?.AlertOutbox ?? {})).toEqual([
      alertId,
    ]);
  });

  it('gives an unlocked CompensationInProgress record nobody claimed in time a new window and a start message', async () => {
    const { lockedBy: _unlocked, ...cancelled } = compensating('order-undo-unclaimed');
    await putStateRecord(world, resources, cancelled);
    const before = Date.now();
    expect(await loadSupervisor()({}, lambdaContext())).toMatchObject({ restarts: 1 });
    const record = await stateItem(world, resources, 'order-undo-unclaimed');
    expect(record).toMatchObject({ ProcessState: 'CompensationInProgress', CompensationFailureCount: 0 });
    expect(record).not.toHaveProperty('LockedBy');
    expect(record?.CompleteBy).toBeGreaterThanOrEqual(before + 1_000);
    expect(await drainBodies(world, resources.startQueueUrl)).toEqual([
      { orderId: 'order-undo-unclaimed', reason: 'supervisor-restart', correlationId: expect.any(String) },
    ]);
  });

  it('changes nothing when the compensation attempt finished after the supervisor read the index', async () => {
    await putStateRecord(world, resources, compensating('order-undo-finished'));
    world.dynamo.beforeForward(async (call) => {
      if (call.operation === 'UpdateItem' && call.body.TableName === resources.stateTable) {
        world.dynamo.beforeForward(undefined);
        await world.doc.send(
          new UpdateCommand({
            TableName: resources.stateTable,
            Key: { OrderID: 'order-undo-finished' },
            UpdateExpression: 'SET ProcessState = :done REMOVE LockedBy, DueShard',
            ExpressionAttributeValues: { ':done': 'Compensated' },
          }),
        );
      }
      return undefined;
    });
    expect(await loadSupervisor()({}, lambdaContext())).toMatchObject({ lostRaces: 1, resets: 0 });
    expect(await stateItem(world, resources, 'order-undo-finished')).toMatchObject({
      ProcessState: 'Compensated',
      CompensationFailureCount: 0,
    });
    expect(await drainBodies(world, resources.startQueueUrl)).toEqual([]);
  });
});

describe('supervisor: fencing and concurrency', () => {
  it('changes nothing when the record was re-claimed after the supervisor read it (stale LockedBy)', async () => {
    await putStateRecord(world, resources, expiredRecord('order-reclaimed'));
    const reclaimedCompleteBy = Date.now() + 60_000;
    // Between the supervisor's query and its update, a starter claims attempt 2.
    world.dynamo.beforeForward(async (call) => {
      if (call.operation === 'UpdateItem' && call.body.TableName === resources.stateTable) {
        world.dynamo.beforeForward(undefined);
        await world.doc.send(
          new UpdateCommand({
            TableName: resources.stateTable,
            Key: { OrderID: 'order-reclaimed' },
            UpdateExpression: 'SET LockedBy = :lock, Attempt = :attempt, CompleteBy = :completeBy',
            ExpressionAttributeValues: {
              ':lock': 'order-reclaimed--attempt-2',
              ':attempt': 2,
              ':completeBy': reclaimedCompleteBy,
            },
          }),
        );
      }
      return undefined;
    });
    const reclaimed = { ...(await stateItem(world, resources, 'order-reclaimed')) };

    const summary = await loadSupervisor()({}, lambdaContext());

    expect(summary).toMatchObject({ examined: 1, lostRaces: 1, resets: 0, failures: 0 });
    expect(await stateItem(world, resources, 'order-reclaimed')).toEqual({
      ...reclaimed,
      LockedBy: 'order-reclaimed--attempt-2',
      Attempt: 2,
      CompleteBy: reclaimedCompleteBy,
    });
    expect(await drainBodies(world, resources.startQueueUrl)).toEqual([]);
  });

  it('lets two supervisors running at once apply exactly one transition per expired record', async () => {
    const ids = Array.from({ length: 8 }, (_, index) => `order-overlap-${index}`);
    for (const id of ids) {
      await putStateRecord(world, resources, expiredRecord(id));
    }
    await putStateRecord(world, resources, expiredRecord('order-overlap-last', { failureCount: 2 }));
    // Two containers, as an overlapping schedule or a manual invocation would produce.
    const first = loadSupervisor();
    const second = loadSupervisor();

    const [a, b] = await Promise.all([first({}, lambdaContext()), second({}, lambdaContext())]);

    expect(a.resets + b.resets).toBe(ids.length);
    expect(a.failures + b.failures).toBe(1);
    for (const id of ids) {
      expect(await stateItem(world, resources, id)).toMatchObject({
        ProcessState: 'Pending',
        FailureCount: 1,
      });
    }
    expect(await stateItem(world, resources, 'order-overlap-last')).toMatchObject({
      ProcessState: 'Error',
      FailureCount: 3,
    });
    const messages = await drainBodies<{ orderId: string }>(world, resources.startQueueUrl);
    expect(messages.map((message) => message.orderId).sort()).toEqual([...ids].sort());
    expect(
      Object.keys((await stateItem(world, resources, 'order-overlap-last'))?.AlertOutbox ?? {}),
    ).toHaveLength(1);
  });
});

describe('supervisor: Pending orders nobody started', () => {
  it('re-queues an overdue new order with a new claim deadline, and the starter can claim it', async () => {
    const overdue: StateRecord = {
      ...buildInitialStateRecord({
        workflowVersion: 1,
        orderId: 'order-unstarted',
        orderFingerprint: 'f'.repeat(64),
        now: Date.now() - 5_000,
        timings: BASE_TIMINGS,
        dueShardCount: SHARDS,
        retryBudget: 12,
      }),
    };
    await putStateRecord(world, resources, overdue);

    const before = Date.now();
    expect(await loadSupervisor()({}, lambdaContext())).toMatchObject({ restarts: 1 });
    const record = await stateItem(world, resources, 'order-unstarted');
    expect(record).toMatchObject({ ProcessState: 'Pending', Attempt: 0, FailureCount: 0 });
    expect(record?.CompleteBy).toBeGreaterThanOrEqual(before + 1_000);
    const messages = await drainBodies(world, resources.startQueueUrl);
    expect(messages).toEqual([
      { orderId: 'order-unstarted', reason: 'supervisor-restart', correlationId: expect.any(String) },
    ]);

    behaveLikeStepFunctions(world.sfn, resources.stateMachineArn);
    const start = loadHandler<{ handler: SqsHandler }>(HANDLERS.startOrder, handlerEnv(resources)).handler;
    expect(await start(sqsEvent([sqsRecord(JSON.stringify(messages[0]))]), lambdaContext())).toEqual({
      batchItemFailures: [],
    });
    expect(await stateItem(world, resources, 'order-unstarted')).toMatchObject({
      ProcessState: 'Processing',
      LockedBy: 'order-unstarted--attempt-1',
    });
  });

  it('re-queues a retry whose back-off ended unclaimed, and the starter claims it at once (no restart loop)', async () => {
    const { lockedBy: _ignored, ...base } = expiredRecord('order-stalled-retry', {
      failureCount: 1,
      attempt: 1,
    });
    await putStateRecord(world, resources, {
      ...base,
      processState: ProcessState.Pending,
      completeBy: Date.now() - 10,
    });

    expect(await loadSupervisor()({}, lambdaContext())).toMatchObject({ restarts: 1 });
    const [message] = await drainBodies(world, resources.startQueueUrl);
    expect(message).toMatchObject({ orderId: 'order-stalled-retry', reason: 'supervisor-restart' });

    behaveLikeStepFunctions(world.sfn, resources.stateMachineArn);
    const start = loadHandler<{ handler: SqsHandler }>(HANDLERS.startOrder, handlerEnv(resources)).handler;
    await start(sqsEvent([sqsRecord(JSON.stringify(message))]), lambdaContext());
    expect(await stateItem(world, resources, 'order-stalled-retry')).toMatchObject({
      ProcessState: 'Processing',
      LockedBy: 'order-stalled-retry--attempt-2',
      Attempt: 2,
    });
  });

  it('leaves Pending orders that are not overdue alone', async () => {
    await putStateRecord(
      world,
      resources,
      buildInitialStateRecord({
        workflowVersion: 1,
        orderId: 'order-fresh',
        orderFingerprint: 'f'.repeat(64),
        now: Date.now(),
        timings: { startGraceSeconds: 60 },
        dueShardCount: SHARDS,
        retryBudget: 12,
      }),
    );
    expect(await loadSupervisor()({}, lambdaContext())).toMatchObject({ examined: 0, restarts: 0 });
    expect(await drainBodies(world, resources.startQueueUrl)).toEqual([]);
  });
});

describe('supervisor: store failures', () => {
  it('counts a failing shard query or record update and carries on with the rest', async () => {
    const ids = Array.from({ length: 10 }, (_, index) => `order-store-${index}`);
    for (const id of ids) {
      await putStateRecord(world, resources, { ...expiredRecord(id), dueShard: dueShardFor(id, 2) });
    }
    const brokenShard = '0';
    const inBrokenShard = ids.filter((id) => dueShardFor(id, 2) === brokenShard);
    const inHealthyShard = ids.filter((id) => dueShardFor(id, 2) !== brokenShard);
    expect(inBrokenShard.length).toBeGreaterThan(0);
    expect(inHealthyShard.length).toBeGreaterThan(1);
    const [failingUpdate, ...updatable] = inHealthyShard;
    world.dynamo.beforeForward((call) => {
      const values = call.body.ExpressionAttributeValues as Record<string, { S?: string }> | undefined;
      const key = call.body.Key as Record<string, { S?: string }> | undefined;
      if (call.operation === 'Query' && values?.[':shard']?.S === brokenShard) {
        return { errorType: 'ResourceNotFoundException', message: 'index unavailable' };
      }
      if (call.operation === 'UpdateItem' && key?.OrderID?.S === failingUpdate) {
        return { errorType: 'ValidationException', message: 'update refused' };
      }
      return undefined;
    });

    const summary = await loadSupervisor({ dueShardCount: 2 })({}, lambdaContext());

    expect(summary).toMatchObject({ errors: 2, resets: updatable.length });
    for (const id of updatable) {
      expect(await stateItem(world, resources, id)).toMatchObject({ ProcessState: 'Pending' });
    }
    for (const id of [...inBrokenShard, failingUpdate]) {
      expect(await stateItem(world, resources, id ?? '')).toMatchObject({ ProcessState: 'Processing' });
    }

    // Once the store recovers, the next run picks up what was left.
    world.dynamo.beforeForward(undefined);
    expect(await loadSupervisor({ dueShardCount: 2 })({}, lambdaContext())).toMatchObject({
      errors: 0,
      resets: inBrokenShard.length + 1,
    });
  });
});

describe('supervisor: paging, budget and cadence', () => {
  it('pages through more due records than one page holds, in every shard, with Query only', async () => {
    const ids = Array.from({ length: 11 }, (_, index) => `order-page-${index}`);
    for (const id of ids) {
      await putStateRecord(world, resources, { ...expiredRecord(id), dueShard: dueShardFor(id, 2) });
    }
    // A long start grace keeps the records this sweep resets out of its own later pages: on a slow
    // machine a page can take longer than a short grace, and a reset record would be due (and
    // examined) again in the same sweep, which is harmless but not what this test counts.
    const supervise = loadSupervisor({
      timings: { supervisorPageSize: 2, startGraceSeconds: 60 },
      dueShardCount: 2,
    });

    const summary = await supervise({}, lambdaContext());

    expect(summary).toMatchObject({ resets: ids.length, examined: ids.length, stoppedByBudget: false });
    const queries = dueQueries();
    expect(queries.length).toBe(summary.pages);
    expect(queries.length).toBeGreaterThanOrEqual(Math.ceil(ids.length / 2));
    expect(queries.every((query) => query.body.Limit === 2)).toBe(true);
    expect(queries.some((query) => query.body.ExclusiveStartKey !== undefined)).toBe(true);
    expect(
      new Set(
        queries
          .map((query) => JSON.stringify(query.body.ExpressionAttributeValues))
          .map((v) => JSON.parse(v)[':shard'].S),
      ),
    ).toEqual(new Set(['0', '1']));
    const states = (await scanAll(world, resources.stateTable)).map((item) => item.ProcessState);
    expect(states).toEqual(ids.map(() => 'Pending'));
    expectOnlyIndexQueriesAndConditionalUpdates();
  });

  it('stops paging when the invocation runs out of time, leaving the rest for the next run', async () => {
    const ids = Array.from({ length: 6 }, (_, index) => `order-budget-${index}`);
    for (const id of ids) {
      await putStateRecord(world, resources, { ...expiredRecord(id), dueShard: '0' });
    }
    const supervise = loadSupervisor({ timings: { supervisorPageSize: 2 }, dueShardCount: 1 });
    // The Lambda context reports the invocation nearly out of time as soon as the first page was read.
    const context = lambdaContext(() => (dueQueries().length >= 1 ? 500 : 60_000));

    const summary = await supervise({}, context);

    expect(summary).toMatchObject({ stoppedByBudget: true, pages: 1, examined: 2, resets: 2 });
    expect(dueQueries()).toHaveLength(1);
    const states = (await scanAll(world, resources.stateTable)).map((item) => item.ProcessState);
    expect(states.filter((state) => state === 'Pending')).toHaveLength(2);
    expect(states.filter((state) => state === 'Processing')).toHaveLength(4);

    // The next run, with time to spare, finishes the job.
    world.dynamo.calls.length = 0;
    expect(await supervise({}, lambdaContext())).toMatchObject({ resets: 4, stoppedByBudget: false });
  });

  it('makes several sweeps per run spaced across the rate, catching records that expire in between', async () => {
    const supervise = loadSupervisor({
      timings: { supervisorRateSeconds: 1, supervisorSweepsPerRun: 3, supervisorBudgetSeconds: 2 },
      dueShardCount: 1,
    });
    // Expires during the run: after the first sweep (t = 0) and before the last (t ~ 667 ms).
    await putStateRecord(world, resources, {
      ...expiredRecord('order-late'),
      completeBy: Date.now() + 300,
      dueShard: '0',
    });

    const startedAt = Date.now();
    const summary = await supervise({}, lambdaContext());
    const elapsed = Date.now() - startedAt;

    expect(summary).toMatchObject({ sweeps: 3, resets: 1, stoppedByBudget: false });
    expect(dueQueries()).toHaveLength(3);
    expect(elapsed).toBeGreaterThanOrEqual(600);
    expect(elapsed).toBeLessThan(2_000);
    expect(await stateItem(world, resources, 'order-late')).toMatchObject({
      ProcessState: 'Pending',
      FailureCount: 1,
    });
  });

  it('does not start a sweep it could not finish within the budget', async () => {
    const supervise = loadSupervisor({
      timings: { supervisorRateSeconds: 10, supervisorSweepsPerRun: 2, supervisorBudgetSeconds: 1 },
      dueShardCount: 1,
    });
    const startedAt = Date.now();
    const summary = await supervise({}, lambdaContext());
    expect(summary.sweeps).toBe(1);
    // The second sweep would start at t = 5 s, past the 1 s budget: the run ends instead of sleeping.
    expect(Date.now() - startedAt).toBeLessThan(1_000);
  });
});

describe('supervisor: metrics and gauges, after each sweep', () => {
  // The core harness turns metrics off; these tests read them.
  const METRICS_ON = { POWERTOOLS_METRICS_DISABLED: 'false' };
  afterEach(() => {
    process.env.POWERTOOLS_METRICS_DISABLED = 'true';
  });

  it('flushes SupervisorSweeps and the order gauges once per sweep, measured from the StateIndex', async () => {
    const now = Date.now();
    const base = (orderId: string) =>
      buildInitialStateRecord({
        orderId,
        orderFingerprint: 'f'.repeat(64),
        now: now - 600_000,
        timings: BASE_TIMINGS,
        dueShardCount: SHARDS,
        retryBudget: 12,
        workflowVersion: 1,
      });
    await putStateRecord(world, resources, { ...base('gauge-error-1'), processState: ProcessState.Error });
    await putStateRecord(world, resources, { ...base('gauge-error-2'), processState: ProcessState.Error });
    // In flight (not due: far CompleteBy), created 10 minutes ago: the oldest in flight.
    await putStateRecord(world, resources, {
      ...base('gauge-in-flight'),
      processState: ProcessState.Processing,
      lockedBy: 'gauge-in-flight--attempt-1',
      attempt: 1,
      completeBy: now + 3_600_000,
    });
    const output = captureStdout();
    const mark = output.mark();
    let summary: SupervisorRunSummary;
    try {
      summary = await loadSupervisor({
        timings: { supervisorSweepsPerRun: 3, supervisorRateSeconds: 1, supervisorBudgetSeconds: 2 },
        env: METRICS_ON,
      })({}, lambdaContext());
    } finally {
      output.restore();
    }
    const metricLines = output.since(mark).filter((line) => '_aws' in line);
    const sweepLines = metricLines.filter((line) => OrderMetric.SupervisorSweeps in line);
    expect(summary.sweeps).toBe(3);
    expect(sweepLines.length).toBe(3);
    for (const line of sweepLines) {
      expect(line).toMatchObject({
        [OrderMetric.SupervisorSweeps]: 1,
        [OrderMetric.OrdersInError]: 2,
        [OrderMetric.CompensationsStuck]: 0,
      });
      const age = Number(line[OrderMetric.OldestInFlightAgeSeconds]);
      expect(age).toBeGreaterThanOrEqual(600);
      expect(age).toBeLessThan(700);
      // High resolution, so the local profile's 10-second alarms can read them.
      const definitions = (
        line._aws as { CloudWatchMetrics: { Metrics: { Name: string; StorageResolution?: number }[] }[] }
      ).CloudWatchMetrics[0]?.Metrics;
      expect(definitions?.find((m) => m.Name === OrderMetric.OrdersInError)?.StorageResolution).toBe(1);
    }
  });

  it("flushes the outbox backstop's AlertPublishFailures on their own, before the first sweep", async () => {
    // The bus refuses every alert; a first run fails the expired order (its alert goes to the outbox).
    world.events.respondWith((call) =>
      call.operation === 'PutEvents'
        ? {
            result: {
              FailedEntryCount: 1,
              Entries: [{ ErrorCode: 'InternalFailure', ErrorMessage: 'down' }],
            },
          }
        : undefined,
    );
    await putStateRecord(world, resources, expiredRecord('order-unalerted', { attempt: 3, failureCount: 2 }));
    const timings = { alertRedeliveryGraceSeconds: 1 };
    expect(await loadSupervisor({ timings })({}, lambdaContext())).toMatchObject({ failures: 1 });
    await sleep(1_100);

    const output = captureStdout();
    const mark = output.mark();
    let summary: SupervisorRunSummary;
    try {
      summary = await loadSupervisor({ timings, env: METRICS_ON })({}, lambdaContext());
    } finally {
      output.restore();
    }
    expect(summary).toMatchObject({ alertFailures: 1, alertsRedelivered: 0 });
    const metricLines = output.since(mark).filter((line) => '_aws' in line);
    const failureLines = metricLines.filter((line) => OrderMetric.AlertPublishFailures in line);
    expect(failureLines).toHaveLength(1);
    expect(failureLines[0]).toMatchObject({ [OrderMetric.AlertPublishFailures]: 1 });
    // Its own flush, ahead of the sweeps' (the alarm on it need not wait for them).
    expect(failureLines[0]).not.toHaveProperty(OrderMetric.SupervisorSweeps);
    const firstSweep = metricLines.findIndex((line) => OrderMetric.SupervisorSweeps in line);
    expect(firstSweep).toBeGreaterThan(metricLines.indexOf(failureLines[0] as (typeof metricLines)[number]));
  });

  it('reports SupervisorSweeps even when nothing is due or in flight, with the gauges at zero', async () => {
    const output = captureStdout();
    const mark = output.mark();
    try {
      await loadSupervisor({ env: METRICS_ON })({}, lambdaContext());
    } finally {
      output.restore();
    }
    const lines = output.since(mark).filter((line) => OrderMetric.SupervisorSweeps in line);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      [OrderMetric.OrdersInError]: 0,
      [OrderMetric.CompensationsStuck]: 0,
      [OrderMetric.OldestInFlightAgeSeconds]: 0,
    });
  });
});
