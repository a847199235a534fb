import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Context, SQSEvent } from 'aws-lambda';
import {
  DynamoStateStore,
  transitionUpdate,
} from '../../../../lambdas/scheduler-agent-supervisor/adapters/state-store';
import {
  CompensationStatus,
  EnvKey,
  ProcessState,
  StepStatus,
} from '../../../../lambdas/scheduler-agent-supervisor/contracts';
import {
  buildInitialStateRecord,
  type StateRecord,
} from '../../../../lambdas/scheduler-agent-supervisor/domain/state-record';
import {
  type ApiHandler,
  BASE_TIMINGS,
  behaveLikeStepFunctions,
  type CoreResources,
  createResources,
  drainQueue,
  HANDLERS,
  handlerEnv,
  lambdaContext,
  loadHandler,
  postOrderEvent,
  putStateRecord,
  type SqsHandler,
  sleep,
  sqsEvent,
  sqsRecord,
  stateItem,
  stepFunctionsResponder,
  useCoreWorld,
  validOrder,
} from './harness';

/** One step window in these tests: stepTimeoutSeconds + stepDeadlineSlackSeconds. */
const WINDOW = (BASE_TIMINGS.stepTimeoutSeconds + BASE_TIMINGS.stepDeadlineSlackSeconds) * 1000;

const world = useCoreWorld();

let resources: CoreResources;
let start: SqsHandler;
beforeEach(async () => {
  resources = await createResources(world);
  world.sfn.calls.length = 0;
  world.dynamo.beforeForward(undefined);
  behaveLikeStepFunctions(world.sfn, resources.stateMachineArn);
  start = loadHandler<{ handler: SqsHandler }>(HANDLERS.startOrder, handlerEnv(resources)).handler;
});

/** Submits through the real submit handler and returns the start message it queued, as SQS would deliver it. */
async function submitAndReceiveStart(orderId: string): Promise<SQSEvent> {
  const submit = loadHandler<{ handler: ApiHandler }>(HANDLERS.submitOrder, handlerEnv(resources)).handler;
  const response = await submit(postOrderEvent(JSON.stringify(validOrder(orderId))), lambdaContext());
  expect(response.statusCode).toBe(202);
  const messages = await drainQueue(world, resources.startQueueUrl);
  expect(messages).toHaveLength(1);
  return sqsEvent([sqsRecord(messages[0]?.Body ?? '', messages[0]?.MessageId)]);
}

function startMessage(orderId: string, correlationId = `corr-${orderId}`): string {
  return JSON.stringify({ orderId, reason: 'submitted', correlationId });
}

function seededRecord(orderId: string, overrides: Partial<StateRecord> = {}): StateRecord {
  return {
    ...buildInitialStateRecord({
      workflowVersion: 1,
      orderId,
      orderFingerprint: 'f'.repeat(64),
      now: Date.now(),
      timings: BASE_TIMINGS,
      dueShardCount: 4,
      retryBudget: 12,
    }),
    ...overrides,
  };
}

describe('starter: workflow versions', () => {
  const V1_ARN = 'arn:aws:states:us-east-1:000000000000:stateMachine:order-workflow-v1';
  const V2_ARN = 'arn:aws:states:us-east-1:000000000000:stateMachine:order-workflow-v2';
  const startWithLive = (live: Record<number, string>) =>
    loadHandler<{ handler: SqsHandler }>(HANDLERS.startOrder, {
      ...handlerEnv(resources),
      [EnvKey.WorkflowStateMachines]: JSON.stringify(live),
    }).handler;

  it.each([
    [1, V1_ARN, ['ReserveInventory', 'ChargePayment', 'ScheduleShipping']],
    [2, V2_ARN, ['ReserveInventory', 'ChargePayment', 'ScheduleShipping', 'AwardLoyaltyPoints']],
  ])(
    'starts a version %i record on its own version state machine, planning its steps, and leaves WorkflowVersion as submitted',
    async (version, arn, steps) => {
      const orderId = `order-v${version}`;
      await putStateRecord(world, resources, {
        ...seededRecord(orderId),
        ...buildInitialStateRecord({
          workflowVersion: version,
          retryBudget: 12,
          orderId,
          orderFingerprint: 'f'.repeat(64),
          now: Date.now(),
          timings: BASE_TIMINGS,
          dueShardCount: 4,
        }),
      });
      const startBoth = startWithLive({ 1: V1_ARN, 2: V2_ARN });
      expect(await startBoth(sqsEvent([sqsRecord(startMessage(orderId))]), lambdaContext())).toEqual({
        batchItemFailures: [],
      });
      const [call] = world.sfn.callsTo('StartExecution');
      expect(call?.body.stateMachineArn).toBe(arn);
      expect(JSON.parse(String(call?.body.input))).toMatchObject({ workflowVersion: version });
      const record = await stateItem(world, resources, orderId);
      expect(record).toMatchObject({ ProcessState: 'Processing', WorkflowVersion: version });
      expect(Object.keys(record?.Steps as object).sort()).toEqual([...steps].sort());
      // A deadline per step of the version and per compensation, no more.
      expect(Object.keys(record?.Plan as object)).toHaveLength(2 * steps.length);
    },
  );

  it.each([
    ['a future workflow version (99)', { workflowVersion: 99 }, { 1: V1_ARN, 2: V2_ARN }],
    ['a retired workflow version', { workflowVersion: 1 }, { 2: V2_ARN }],
    ['an unsupported schema version', { schemaVersion: 1 }, { 1: V1_ARN }],
  ])(
    'refuses a record of %s: the message fails (to its DLQ), the record is untouched, nothing starts',
    async (_case, versions, live) => {
      const orderId = 'order-unsupported';
      await putStateRecord(world, resources, seededRecord(orderId, versions));
      const before = await stateItem(world, resources, orderId);
      const event = sqsEvent([sqsRecord(startMessage(orderId), 'm-unsupported')]);
      expect(await startWithLive(live)(event, lambdaContext())).toEqual({
        batchItemFailures: [{ itemIdentifier: 'm-unsupported' }],
      });
      expect(await stateItem(world, resources, orderId)).toEqual(before);
      expect(world.sfn.callsTo('StartExecution')).toEqual([]);
    },
  );
});

describe('starter: claiming and starting', () => {
  it('claims a submitted order for attempt 1, plans every step, then starts the execution named after it', async () => {
    const event = await submitAndReceiveStart('order-start');
    const before = Date.now();
    expect(await start(event, lambdaContext())).toEqual({ batchItemFailures: [] });
    const after = Date.now();

    const record = await stateItem(world, resources, 'order-start');
    expect(record).toMatchObject({
      ProcessState: 'Processing',
      LockedBy: 'order-start--attempt-1',
      Attempt: 1,
      FailureCount: 0,
      WorkflowVersion: 1,
    });
    const plan = record?.Plan as Record<string, number>;
    const claimedAt = (plan.ReserveInventory ?? 0) - WINDOW;
    expect(claimedAt).toBeGreaterThanOrEqual(before);
    expect(claimedAt).toBeLessThanOrEqual(after);
    expect(plan).toEqual({
      ReserveInventory: claimedAt + WINDOW,
      ChargePayment: claimedAt + 2 * WINDOW,
      ScheduleShipping: claimedAt + 3 * WINDOW,
      // Then the compensations, in the order they would run.
      CancelShipment: claimedAt + 4 * WINDOW,
      RefundPayment: claimedAt + 5 * WINDOW,
      ReleaseInventory: claimedAt + 6 * WINDOW,
    });
    expect(record?.CompleteBy).toBe(plan.ReserveInventory);

    const starts = world.sfn.callsTo('StartExecution');
    expect(starts).toHaveLength(1);
    const correlationId = JSON.parse(event.Records[0]?.body ?? '').correlationId;
    expect(starts[0]?.body).toEqual({
      stateMachineArn: resources.stateMachineArn,
      name: 'order-start--attempt-1',
      input: JSON.stringify({
        orderId: 'order-start',
        instanceId: 'order-start--attempt-1',
        attempt: 1,
        correlationId,
        workflowVersion: 1,
      }),
    });
  });

  it('lets exactly one of two racing starters claim the record and start one execution', async () => {
    const event = await submitAndReceiveStart('order-race');
    // Two containers of the starter, as Lambda would run for a duplicated delivery.
    const otherStart = loadHandler<{ handler: SqsHandler }>(
      HANDLERS.startOrder,
      handlerEnv(resources),
    ).handler;
    world.dynamo.calls.length = 0;

    // Hold both reads until both have arrived, so both starters see the record Pending.
    let reads = 0;
    let releaseReads: () => void = () => undefined;
    const bothRead = new Promise<void>((resolve) => {
      releaseReads = resolve;
    });
    world.dynamo.beforeForward(async (call) => {
      if (call.operation === 'GetItem' && call.body.TableName === resources.stateTable) {
        reads += 1;
        if (reads === 2) {
          releaseReads();
        }
        await bothRead;
      }
      return undefined;
    });

    const results = await Promise.all([start(event, lambdaContext()), otherStart(event, lambdaContext())]);

    expect(results).toEqual([{ batchItemFailures: [] }, { batchItemFailures: [] }]);
    expect(reads).toBe(2);
    const updates = world.dynamo
      .callsTo('UpdateItem')
      .filter((call) => call.body.TableName === resources.stateTable);
    expect(updates).toHaveLength(2);
    expect(await stateItem(world, resources, 'order-race')).toMatchObject({
      ProcessState: 'Processing',
      LockedBy: 'order-race--attempt-1',
      Attempt: 1,
    });
    expect(world.sfn.callsTo('StartExecution').map((call) => call.body.name)).toEqual([
      'order-race--attempt-1',
    ]);
  });

  it('re-issues StartExecution with the same name and input when a start message is redelivered', async () => {
    const event = await submitAndReceiveStart('order-redeliver');
    expect(await start(event, lambdaContext())).toEqual({ batchItemFailures: [] });
    const claimed = await stateItem(world, resources, 'order-redeliver');

    expect(await start(event, lambdaContext())).toEqual({ batchItemFailures: [] });

    const starts = world.sfn.callsTo('StartExecution');
    expect(starts).toHaveLength(2);
    expect(starts[1]?.body).toEqual(starts[0]?.body);
    expect(await stateItem(world, resources, 'order-redeliver')).toEqual(claimed);
  });

  it('treats ExecutionAlreadyExists as already started and acknowledges the message', async () => {
    const event = await submitAndReceiveStart('order-exists');
    world.sfn.respondWith(() => ({ error: 'ExecutionAlreadyExists', message: 'exists' }));
    expect(await start(event, lambdaContext())).toEqual({ batchItemFailures: [] });
    expect(await stateItem(world, resources, 'order-exists')).toMatchObject({
      ProcessState: 'Processing',
      Attempt: 1,
    });
  });
});

const START_FAILURE = {
  error: 'ExecutionLimitExceeded',
  message: 'Maximum number of running executions reached',
} as const;
const GRACE = BASE_TIMINGS.startGraceSeconds * 1000;

/**
 * Step Functions whose StartExecution fails: the first `failures` calls (then it recovers), or every
 * call. With `answersLost` the execution is created all the same and only the answer is lost.
 */
function failingStepFunctions(options: { failures?: number; answersLost?: boolean } = {}): {
  recover(): void;
} {
  const healthy = stepFunctionsResponder(resources.stateMachineArn);
  let failuresLeft = options.failures ?? Number.POSITIVE_INFINITY;
  world.sfn.respondWith((call) => {
    if (call.operation !== 'StartExecution' || failuresLeft <= 0) {
      return healthy(call);
    }
    failuresLeft -= 1;
    if (options.answersLost) {
      healthy(call);
    }
    return START_FAILURE;
  });
  return {
    recover: () => {
      failuresLeft = 0;
    },
  };
}

/**
 * Runs `change` right before the starter's second state-table update (the first is its claim, the
 * second its release) reaches DynamoDB, i.e. while StartExecution was failing.
 */
function beforeRelease(change: () => Promise<void>): void {
  let updates = 0;
  world.dynamo.beforeForward(async (call) => {
    if (call.operation === 'UpdateItem' && call.body.TableName === resources.stateTable) {
      updates += 1;
      if (updates === 2) {
        await change();
      }
    }
    return undefined;
  });
}

describe('starter: when StartExecution fails', () => {
  it('retries in-process and starts the order within one delivery when StartExecution fails twice, then succeeds', async () => {
    const event = await submitAndReceiveStart('order-sfn-blip');
    failingStepFunctions({ failures: 2 });

    expect(await start(event, lambdaContext())).toEqual({ batchItemFailures: [] });

    const starts = world.sfn.callsTo('StartExecution');
    expect(starts).toHaveLength(3);
    expect(starts[0]?.body.name).toBe('order-sfn-blip--attempt-1');
    expect(starts.map((call) => call.body)).toEqual([starts[0]?.body, starts[0]?.body, starts[0]?.body]);
    expect(await stateItem(world, resources, 'order-sfn-blip')).toMatchObject({
      ProcessState: 'Processing',
      LockedBy: 'order-sfn-blip--attempt-1',
      Attempt: 1,
      FailureCount: 0,
    });
  });

  it('releases its claim and fails the message when StartExecution keeps failing; the redelivery claims the same attempt', async () => {
    const retry = seededRecord('order-sfn-down', {
      attempt: 1,
      failureCount: 1,
      completeBy: Date.now() + GRACE,
      steps: {
        ReserveInventory: { status: StepStatus.Completed, result: { ConfirmationId: 'inv-1' } },
        ChargePayment: { status: StepStatus.Running },
        ScheduleShipping: { status: StepStatus.NotStarted },
      },
    });
    await putStateRecord(world, resources, retry);
    const event = sqsEvent([sqsRecord(startMessage('order-sfn-down'))]);
    const stepFunctions = failingStepFunctions();

    const before = Date.now();
    expect(await start(event, lambdaContext())).toEqual({
      batchItemFailures: [{ itemIdentifier: event.Records[0]?.messageId }],
    });
    const after = Date.now();

    const failedStarts = world.sfn.callsTo('StartExecution');
    expect(failedStarts).toHaveLength(3);
    expect(failedStarts.map((call) => call.body.name)).toEqual(Array(3).fill('order-sfn-down--attempt-2'));
    const released = await stateItem(world, resources, 'order-sfn-down');
    expect(released).toMatchObject({
      ProcessState: 'Pending',
      Attempt: 1,
      FailureCount: 1,
      DueShard: retry.dueShard,
      Steps: { ReserveInventory: { Status: 'Completed', Result: { ConfirmationId: 'inv-1' } } },
    });
    expect(released).not.toHaveProperty('LockedBy');
    expect(released?.CompleteBy).toBeGreaterThanOrEqual(before + GRACE);
    expect(released?.CompleteBy).toBeLessThanOrEqual(after + GRACE);

    // SQS redelivers the message after its visibility timeout, by which time Step Functions is back.
    stepFunctions.recover();
    world.sfn.calls.length = 0;
    expect(await start(event, lambdaContext())).toEqual({ batchItemFailures: [] });
    expect(world.sfn.callsTo('StartExecution').map((call) => call.body)).toEqual([failedStarts[0]?.body]);
    expect(await stateItem(world, resources, 'order-sfn-down')).toMatchObject({
      ProcessState: 'Processing',
      LockedBy: 'order-sfn-down--attempt-2',
      Attempt: 2,
      FailureCount: 1,
    });
  });

  it('leaves a released order to the supervisor when no redelivery comes: re-queued, no failure counted', async () => {
    const event = await submitAndReceiveStart('order-sfn-gone');
    const stepFunctions = failingStepFunctions();
    expect((await start(event, lambdaContext())).batchItemFailures).toHaveLength(1);
    const released = await stateItem(world, resources, 'order-sfn-gone');
    expect(released).toMatchObject({ ProcessState: 'Pending', Attempt: 0, FailureCount: 0 });

    await sleep(Number(released?.CompleteBy) - Date.now() + 50);
    const supervise = loadHandler<{ handler: (event: unknown, context: Context) => Promise<unknown> }>(
      HANDLERS.supervisor,
      handlerEnv(resources),
    ).handler;
    expect(await supervise({}, lambdaContext())).toMatchObject({ restarts: 1, resets: 0, failures: 0 });
    expect(await stateItem(world, resources, 'order-sfn-gone')).toMatchObject({
      ProcessState: 'Pending',
      Attempt: 0,
      FailureCount: 0,
    });
    const [restart] = await drainQueue(world, resources.startQueueUrl);
    expect(JSON.parse(restart?.Body ?? '{}')).toMatchObject({ reason: 'supervisor-restart' });

    stepFunctions.recover();
    world.sfn.calls.length = 0;
    expect(await start(sqsEvent([sqsRecord(restart?.Body ?? '')]), lambdaContext())).toEqual({
      batchItemFailures: [],
    });
    expect(world.sfn.callsTo('StartExecution').map((call) => call.body.name)).toEqual([
      'order-sfn-gone--attempt-1',
    ]);
    expect(await stateItem(world, resources, 'order-sfn-gone')).toMatchObject({
      ProcessState: 'Processing',
      Attempt: 1,
      FailureCount: 0,
    });
  });

  it('does not release a record the supervisor reset while StartExecution was failing', async () => {
    await putStateRecord(world, resources, seededRecord('order-moved-on'));
    failingStepFunctions();
    let afterReset: Record<string, unknown> | undefined;
    beforeRelease(async () => {
      const claimed = await stateItem(world, resources, 'order-moved-on');
      const supervisorsView = new DynamoStateStore(world.doc, resources.stateTable);
      const seen = {
        orderId: 'order-moved-on',
        processState: ProcessState.Processing,
        lockedBy: String(claimed?.LockedBy),
        completeBy: Number(claimed?.CompleteBy),
        failureCount: Number(claimed?.FailureCount),
        attempt: Number(claimed?.Attempt),
        compensationFailureCount: 0,
      };
      const reset = { failureCount: 1, completeBy: Date.now() + 30_000, at: Date.now() };
      expect(await supervisorsView.resetExpired(seen, reset)).toBe('applied');
      afterReset = await stateItem(world, resources, 'order-moved-on');
    });

    const event = sqsEvent([sqsRecord(startMessage('order-moved-on'))]);
    expect(await start(event, lambdaContext())).toEqual({
      batchItemFailures: [{ itemIdentifier: event.Records[0]?.messageId }],
    });

    expect(afterReset).toMatchObject({ ProcessState: 'Pending', Attempt: 1, FailureCount: 1 });
    const updates = world.dynamo
      .callsTo('UpdateItem')
      .filter((call) => call.body.TableName === resources.stateTable);
    expect(updates).toHaveLength(2);
    expect(await stateItem(world, resources, 'order-moved-on')).toEqual(afterReset);
  });

  it('leaves the lock to an execution that did start (answer lost) and already wrote; the redelivery re-issues the same start', async () => {
    await putStateRecord(world, resources, seededRecord('order-answer-lost'));
    const stepFunctions = failingStepFunctions({ answersLost: true });
    beforeRelease(async () => {
      // What the execution's ReserveInventory.MarkRunning writes, fenced the same way.
      const enteredAt = new Date().toISOString();
      await world.doc.send(
        new UpdateCommand({
          TableName: resources.stateTable,
          Key: { OrderID: 'order-answer-lost' },
          UpdateExpression:
            'SET Steps.ReserveInventory.#status = :running, Steps.ReserveInventory.StartedAt = :now, UpdatedAt = :now',
          ConditionExpression: 'LockedBy = :instanceId AND ProcessState = :processing',
          ExpressionAttributeNames: { '#status': 'Status' },
          ExpressionAttributeValues: {
            ':running': StepStatus.Running,
            ':now': enteredAt,
            ':instanceId': 'order-answer-lost--attempt-1',
            ':processing': ProcessState.Processing,
          },
        }),
      );
    });

    const event = sqsEvent([sqsRecord(startMessage('order-answer-lost'))]);
    expect(await start(event, lambdaContext())).toEqual({
      batchItemFailures: [{ itemIdentifier: event.Records[0]?.messageId }],
    });
    const running = await stateItem(world, resources, 'order-answer-lost');
    expect(running).toMatchObject({
      ProcessState: 'Processing',
      LockedBy: 'order-answer-lost--attempt-1',
      Attempt: 1,
      FailureCount: 0,
      Steps: { ReserveInventory: { Status: 'Running' } },
    });

    // The redelivery finds the execution's claim and re-issues its start: the same request again.
    world.dynamo.beforeForward(undefined);
    stepFunctions.recover();
    expect(await start(event, lambdaContext())).toEqual({ batchItemFailures: [] });
    const starts = world.sfn.callsTo('StartExecution');
    expect(starts).toHaveLength(4);
    expect(new Set(starts.map((call) => JSON.stringify(call.body))).size).toBe(1);
    expect(await stateItem(world, resources, 'order-answer-lost')).toEqual(running);
  });

  it('leaves the lock to an execution whose agent already made its progress write (lean: ProgressAt, not UpdatedAt)', async () => {
    await putStateRecord(world, resources, seededRecord('order-progress-lost'));
    failingStepFunctions({ answersLost: true });
    beforeRelease(async () => {
      // What the lean agent's call reservation writes besides its ADD: progressStepRunning.
      await world.doc.send(
        new UpdateCommand({
          TableName: resources.stateTable,
          ...transitionUpdate(
            'progressStepRunning',
            'order-progress-lost',
            {
              instanceId: 'order-progress-lost--attempt-1',
              runningStep: 'ReserveInventory',
              completeBy: Date.now() + GRACE,
              now: new Date().toISOString(),
            },
            { step: 'ReserveInventory' },
          ),
        }),
      );
    });

    const event = sqsEvent([sqsRecord(startMessage('order-progress-lost'))]);
    expect(await start(event, lambdaContext())).toEqual({
      batchItemFailures: [{ itemIdentifier: event.Records[0]?.messageId }],
    });
    // The release lost on ProgressAt alone: UpdatedAt is still the claim's.
    const running = await stateItem(world, resources, 'order-progress-lost');
    expect(running).toMatchObject({
      ProcessState: 'Processing',
      LockedBy: 'order-progress-lost--attempt-1',
      Attempt: 1,
      Steps: { ReserveInventory: { Status: 'Running' } },
    });
    expect(running?.ProgressAt).not.toBe(running?.UpdatedAt);
  });

  it('fails the message and leaves the record Processing for the supervisor when the release itself fails', async () => {
    await putStateRecord(world, resources, seededRecord('order-release-fails'));
    failingStepFunctions();
    let updates = 0;
    world.dynamo.beforeForward((call) => {
      if (call.operation === 'UpdateItem' && call.body.TableName === resources.stateTable) {
        updates += 1;
        if (updates >= 2) {
          return { errorType: 'InternalServerError', message: 'internal error' };
        }
      }
      return undefined;
    });

    const event = sqsEvent([sqsRecord(startMessage('order-release-fails'))]);
    expect(await start(event, lambdaContext())).toEqual({
      batchItemFailures: [{ itemIdentifier: event.Records[0]?.messageId }],
    });
    expect(updates).toBeGreaterThanOrEqual(2);
    expect(await stateItem(world, resources, 'order-release-fails')).toMatchObject({
      ProcessState: 'Processing',
      LockedBy: 'order-release-fails--attempt-1',
      Attempt: 1,
      FailureCount: 0,
    });
  });
});

describe('starter: messages it must not act on', () => {
  it('fails only the malformed and unknown-order messages of a batch, and processes the rest', async () => {
    await putStateRecord(world, resources, seededRecord('order-good'));
    const good = sqsRecord(startMessage('order-good'));
    const notJson = sqsRecord('{not json');
    const wrongShape = sqsRecord(JSON.stringify({ orderId: 'order-good', reason: 'because' }));
    const unknown = sqsRecord(startMessage('order-nobody'));

    const result = await start(sqsEvent([good, notJson, wrongShape, unknown]), lambdaContext());

    expect(result.batchItemFailures.map((failure) => failure.itemIdentifier).sort()).toEqual(
      [notJson.messageId, wrongShape.messageId, unknown.messageId].sort(),
    );
    expect(await stateItem(world, resources, 'order-good')).toMatchObject({
      ProcessState: 'Processing',
      Attempt: 1,
    });
    expect(await stateItem(world, resources, 'order-nobody')).toBeUndefined();
    expect(world.sfn.callsTo('StartExecution').map((call) => call.body.name)).toEqual([
      'order-good--attempt-1',
    ]);
  });

  it('acknowledges but does not claim a retry whose back-off has not ended', async () => {
    const inBackOff = seededRecord('order-backoff', {
      attempt: 1,
      failureCount: 1,
      completeBy: Date.now() + 60_000 + BASE_TIMINGS.startGraceSeconds * 1000,
    });
    await putStateRecord(world, resources, inBackOff);

    expect(await start(sqsEvent([sqsRecord(startMessage('order-backoff'))]), lambdaContext())).toEqual({
      batchItemFailures: [],
    });
    expect(await stateItem(world, resources, 'order-backoff')).toMatchObject({
      ProcessState: 'Pending',
      Attempt: 1,
    });
    expect(world.sfn.callsTo('StartExecution')).toEqual([]);
  });

  it.each([ProcessState.Processed, ProcessState.Error])('leaves a %s order alone', async (processState) => {
    const { dueShard: _ignored, ...finished } = seededRecord('order-done', { processState, attempt: 2 });
    await putStateRecord(world, resources, finished);
    expect(await start(sqsEvent([sqsRecord(startMessage('order-done'))]), lambdaContext())).toEqual({
      batchItemFailures: [],
    });
    expect(await stateItem(world, resources, 'order-done')).toMatchObject({
      ProcessState: processState,
      Attempt: 2,
    });
    expect(world.sfn.callsTo('StartExecution')).toEqual([]);
  });
});

describe('starter: compensation claims', () => {
  /** What an operator cancel leaves: CompensationInProgress, unlocked, claimable now. */
  const cancelled = (orderId: string) =>
    seededRecord(orderId, {
      processState: ProcessState.CompensationInProgress,
      attempt: 2,
      failureCount: 3,
      completeBy: Date.now() + GRACE,
      steps: {
        ReserveInventory: { status: StepStatus.Completed, result: { ConfirmationId: 'inv-1' } },
        ChargePayment: { status: StepStatus.TimedOut },
        ScheduleShipping: { status: StepStatus.NotStarted },
      },
      compensationLog: {
        ReserveInventory: {
          seq: 1,
          compensation: 'ReleaseInventory',
          undoes: `${orderId}:ReserveInventory`,
          confirmationId: 'inv-1',
          status: CompensationStatus.Recorded,
        },
      },
    });

  it('claims an unlocked CompensationInProgress record for a compensation attempt: compensation deadlines only, then starts it', async () => {
    await putStateRecord(world, resources, cancelled('order-cancelled'));
    const event = sqsEvent([
      sqsRecord(
        JSON.stringify({ orderId: 'order-cancelled', reason: 'operator-cancel', correlationId: 'c-1' }),
      ),
    ]);
    const before = Date.now();
    expect(await start(event, lambdaContext())).toEqual({ batchItemFailures: [] });
    const after = Date.now();

    const record = await stateItem(world, resources, 'order-cancelled');
    expect(record).toMatchObject({
      ProcessState: 'CompensationInProgress',
      LockedBy: 'order-cancelled--attempt-3',
      Attempt: 3,
      FailureCount: 3,
    });
    const plan = record?.Plan as Record<string, number>;
    // Reverse step order: ScheduleShipping has nothing to undo; ChargePayment is uncertain, then ReserveInventory.
    const claimedAt = plan.CancelShipment ?? 0;
    expect(claimedAt).toBeGreaterThanOrEqual(before);
    expect(claimedAt).toBeLessThanOrEqual(after);
    expect(plan).toEqual({
      CancelShipment: claimedAt,
      RefundPayment: claimedAt + WINDOW,
      ReleaseInventory: claimedAt + 2 * WINDOW,
    });
    expect(record?.CompleteBy).toBe(plan.RefundPayment);
    expect(world.sfn.callsTo('StartExecution').map((call) => call.body.name)).toEqual([
      'order-cancelled--attempt-3',
    ]);
  });

  it('gives the compensation claim back, still CompensationInProgress, when StartExecution keeps failing', async () => {
    await putStateRecord(world, resources, cancelled('order-cancel-sfn-down'));
    failingStepFunctions();
    const event = sqsEvent([
      sqsRecord(
        JSON.stringify({ orderId: 'order-cancel-sfn-down', reason: 'operator-cancel', correlationId: 'c-2' }),
      ),
    ]);
    expect(await start(event, lambdaContext())).toEqual({
      batchItemFailures: [{ itemIdentifier: event.Records[0]?.messageId }],
    });
    const released = await stateItem(world, resources, 'order-cancel-sfn-down');
    expect(released).toMatchObject({ ProcessState: 'CompensationInProgress', Attempt: 2 });
    expect(released).not.toHaveProperty('LockedBy');
  });
});

describe('starter: retries', () => {
  it('claims a retry whose back-off has ended for the next attempt, keeping completed steps done', async () => {
    const now = Date.now();
    const retry = seededRecord('order-retry', {
      attempt: 1,
      failureCount: 1,
      // Claim deadline = end of back-off (now) + start grace: the back-off has just ended.
      completeBy: now + BASE_TIMINGS.startGraceSeconds * 1000,
      steps: {
        ReserveInventory: { status: StepStatus.Completed, result: { ConfirmationId: 'inv-1' } },
        ChargePayment: { status: StepStatus.Running },
        ScheduleShipping: { status: StepStatus.NotStarted },
      },
    });
    await putStateRecord(world, resources, retry);

    expect(await start(sqsEvent([sqsRecord(startMessage('order-retry'))]), lambdaContext())).toEqual({
      batchItemFailures: [],
    });

    const record = await stateItem(world, resources, 'order-retry');
    const plan = record?.Plan as Record<string, number>;
    const claimedAt = plan.ReserveInventory ?? 0;
    expect(claimedAt).toBeGreaterThanOrEqual(now);
    expect(plan).toEqual({
      ReserveInventory: claimedAt,
      ChargePayment: claimedAt + WINDOW,
      ScheduleShipping: claimedAt + 2 * WINDOW,
      CancelShipment: claimedAt + 3 * WINDOW,
      RefundPayment: claimedAt + 4 * WINDOW,
      ReleaseInventory: claimedAt + 5 * WINDOW,
    });
    expect(record).toMatchObject({
      ProcessState: 'Processing',
      LockedBy: 'order-retry--attempt-2',
      Attempt: 2,
      FailureCount: 1,
      CompleteBy: claimedAt + WINDOW,
      Steps: { ReserveInventory: { Status: 'Completed', Result: { ConfirmationId: 'inv-1' } } },
    });
    expect(world.sfn.callsTo('StartExecution').map((call) => call.body.name)).toEqual([
      'order-retry--attempt-2',
    ]);
  });
});
