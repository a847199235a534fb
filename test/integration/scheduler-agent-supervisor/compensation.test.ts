/**
 * Compensation through the real scheduler state machine (synthesized, profile local) on the local
 * Step Functions runtime, DynamoDB Local and the runtime's SQS: a scripted agent answers the task
 * tokens of both actions (perform and compensate), so these tests prove the scheduler's side of
 * the rollback: which steps are undone, in which order, under which keys, what the record says
 * after each end, and that the fence still holds. The starter and the supervisor that take over
 * an abandoned or cancelled compensation are the real domain code over the real state store.
 */
import { SendTaskFailureCommand, SendTaskSuccessCommand } from '@aws-sdk/client-sfn';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoStateStore } from '../../../lambdas/scheduler-agent-supervisor/adapters/state-store';
import { SfnWorkflowStarter } from '../../../lambdas/scheduler-agent-supervisor/adapters/workflow-starter';
import {
  AgentError,
  type AgentRequest,
  ALERT_OUTBOX_SHARD,
  AlertType,
  alertIdFor,
  DEFAULT_WORKFLOW_VERSION,
  ProcessState,
  type StepName,
  workflowSteps,
} from '../../../lambdas/scheduler-agent-supervisor/contracts';
import { startOrder } from '../../../lambdas/scheduler-agent-supervisor/domain/starter';
import { waitForEnd } from '../local-runtime/stepfunctions/harness';
import {
  config,
  type Item,
  logStatus,
  type SchedulerHarness,
  type SeedOptions,
  STATE_TABLE,
  startSchedulerHarness,
  stepStatus,
} from './scheduler-harness';

/** The steps of an order on the default workflow version (what these tests deploy). */
const V1_STEPS = workflowSteps(DEFAULT_WORKFLOW_VERSION);

/** The starter of a classic version never reads the order (its execution loads it): fails if asked. */
const classicNeverReadsOrders = {
  get: async (orderId: string): Promise<never> => {
    throw new Error(`a classic start read order '${orderId}'`);
  },
};

const { stepTimeoutSeconds } = config.timings;
const STEP_NAMES = V1_STEPS.map((step) => step.name);
const compensationOf = (step: StepName) =>
  V1_STEPS.find((candidate) => candidate.name === step)?.compensation.name ?? '';

describe('compensation in the synthesized scheduler state machine (local runtime)', () => {
  let s: SchedulerHarness;
  let store: DynamoStateStore;

  beforeAll(async () => {
    s = await startSchedulerHarness();
    store = new DynamoStateStore(DynamoDBDocumentClient.from(s.h.dynamodb), STATE_TABLE);
  }, 120_000);

  afterAll(async () => {
    await s.stop();
  });

  afterEach(() => {
    expect(s.unexpected).toEqual([]);
  });

  const fail = (request: AgentRequest, cause: string) =>
    s.h.client.send(
      new SendTaskFailureCommand({ taskToken: request.taskToken, error: AgentError.Permanent, cause }),
    );
  const requests = (orderId: string) => s.received.get(orderId) ?? [];
  const compensations = (orderId: string) =>
    requests(orderId).filter((request) => request.action === 'compensate');

  /** Steps a performing agent completes, the step it refuses for good, and how it compensates. */
  function scriptedAgent(options: {
    readonly refuse?: StepName;
    readonly compensate?: (request: AgentRequest) => Promise<void>;
  }) {
    return async (request: AgentRequest) => {
      if (request.action === 'compensate') return (options.compensate ?? s.succeed)(request);
      if (request.step === options.refuse) return void (await fail(request, '422 refused'));
      return s.succeed(request);
    };
  }

  /** Expects the request of each step's compensation, in the order given, in attempt `attempt`. */
  function expectCompensationRequests(
    orderId: string,
    item: Item,
    steps: readonly StepName[],
    attempt: number,
  ) {
    const sent = compensations(orderId).filter((request) => request.attempt === attempt);
    expect(sent.map((request) => request.step)).toEqual(steps);
    for (const request of sent) {
      const operation = compensationOf(request.step as StepName);
      expect(request).toMatchObject({
        action: 'compensate',
        operation,
        undoes: `${orderId}:${request.step}`,
        idempotencyKey: `${orderId}:${operation}`,
        instanceId: `${orderId}--attempt-${attempt}`,
        deadlineEpochMillis: Number(item.Plan?.M?.[operation]?.N),
        order: { customerId: 'customer-1', totalCents: 1999, currency: 'EUR' },
      });
    }
  }

  describe.each(STEP_NAMES.map((name, index) => [name, index] as const))(
    'a permanent failure of step %s',
    (failing, index) => {
      const orderId = `order-fail-at-${index + 1}`;
      const completed = STEP_NAMES.slice(0, index);

      it('undoes exactly the completed steps, in reverse order, in the same execution, and ends Compensated', async () => {
        const instanceId = await s.seed(orderId, { attempt: 1 });
        s.agents.set(orderId, scriptedAgent({ refuse: failing }));
        const ended = await s.start(orderId, instanceId, 1);
        expect(ended.status).toBe('SUCCEEDED');

        const item = await s.record(orderId);
        expect(item.ProcessState).toEqual({ S: ProcessState.Compensated });
        expect(item.LockedBy).toBeUndefined();
        expect(item.DueShard).toBeUndefined();
        expect(item.RunningStep).toBeUndefined();
        expect(item.LastError?.M).toMatchObject({
          Source: { S: failing },
          Error: { S: AgentError.Permanent },
        });
        expect(STEP_NAMES.map((step) => [step, stepStatus(item, step), logStatus(item, step)])).toEqual(
          STEP_NAMES.map((step, k) =>
            k < index
              ? [step, 'Compensated', 'Compensated']
              : k === index
                ? [step, 'Failed', undefined]
                : [step, 'NotStarted', undefined],
          ),
        );
        for (const step of completed) {
          expect(item.CompensationLog?.M?.[step]?.M).toMatchObject({
            ConfirmationId: { S: `conf-${step}` },
            Result: { M: { ConfirmationId: { S: `undo-${step}` }, Undone: { BOOL: true } } },
          });
        }
        expect(
          requests(orderId)
            .filter((r) => r.action === 'perform')
            .map((r) => r.step),
        ).toEqual(STEP_NAMES.slice(0, index + 1));
        expectCompensationRequests(orderId, item, [...completed].reverse(), 1);
      });
    },
  );

  it('an abandoned compensation attempt is resumed by a new attempt, which calls again with the same key', async () => {
    const orderId = 'order-resumed-undo';
    // A short plan: the abandoned attempt's CompleteBy has passed when the supervisor looks.
    const first = await s.seed(orderId, { attempt: 1, planOffsetMillis: 1_000 });
    let silent = true;
    s.agents.set(
      orderId,
      scriptedAgent({
        refuse: 'ScheduleShipping',
        // The first compensating call (ChargePayment's) gets no answer while `silent`.
        compensate: async (request) =>
          silent && request.step === 'ChargePayment' ? undefined : s.succeed(request),
      }),
    );
    const abandoned = await s.start(orderId, first, 1);
    expect(abandoned).toMatchObject({ status: 'FAILED', error: 'AttemptAbandoned' });

    const left = await s.record(orderId);
    expect(left.ProcessState).toEqual({ S: ProcessState.CompensationInProgress });
    expect(left.LockedBy).toEqual({ S: first });
    expect(left.DueShard).toEqual({ S: '0' });
    expect(logStatus(left, 'ChargePayment')).toBe('Compensating');
    expect(stepStatus(left, 'ChargePayment')).toBe('Compensating');
    expect(logStatus(left, 'ReserveInventory')).toBe('Recorded');
    expect(Number(left.CompleteBy?.N)).toBe(Number(left.Plan?.M?.RefundPayment?.N));

    // The supervisor unlocks the expired compensation attempt (the real transition) ...
    const [due] = (await store.queryDue('0', Number.MAX_SAFE_INTEGER, 100)).records.filter(
      (r) => r.orderId === orderId,
    );
    expect(due).toMatchObject({ processState: ProcessState.CompensationInProgress, lockedBy: first });
    if (due === undefined) throw new Error('not due');
    expect(
      await store.resetExpiredCompensation(due, {
        compensationFailureCount: 1,
        completeBy: Date.now() - 1,
        at: Date.now(),
      }),
    ).toBe('applied');
    // ... and the starter claims it for attempt 2 and starts the same state machine.
    silent = false;
    const outcome = await startOrder(
      { orderId, reason: 'supervisor-retry', correlationId: 'corr-retry' },
      {
        states: store,
        orders: classicNeverReadsOrders,
        workflow: new SfnWorkflowStarter(s.h.client, new Map([[1, s.stateMachineArn]])),
        liveWorkflowVersions: [1],
        clock: { now: () => Date.now() },
        timings: config.timings,
        retry: {
          policy: { maxAttempts: 1, baseMillis: 1, capMillis: 1 },
          sleep: async () => {},
          random: Math.random,
        },
      },
    );
    expect(outcome).toMatchObject({ kind: 'started', attempt: 2, claimed: true });
    const second = `${orderId}--attempt-2`;
    const ended = await waitForEnd(s.h.client, executionArn(second), (stepTimeoutSeconds + 10) * 1000);
    expect(ended.status).toBe('SUCCEEDED');

    const item = await s.record(orderId);
    expect(item.ProcessState).toEqual({ S: ProcessState.Compensated });
    expect(item.CompensationFailureCount).toEqual({ N: '1' });
    expect(STEP_NAMES.map((step) => stepStatus(item, step))).toEqual([
      'Compensated',
      'Compensated',
      'Failed',
    ]);
    // The same key both times: the downstream answers the retry from its record.
    const charged = compensations(orderId).filter((request) => request.step === 'ChargePayment');
    expect(charged.map((request) => [request.attempt, request.idempotencyKey])).toEqual([
      [1, `${orderId}:RefundPayment`],
      [2, `${orderId}:RefundPayment`],
    ]);
    expectCompensationRequests(orderId, item, ['ChargePayment', 'ReserveInventory'], 2);
  }, 60_000);

  it('a compensation refused for good ends CompensationFailed, unlocked, out of the index, with one CompensationFailed alert', async () => {
    const orderId = 'order-undo-refused';
    const instanceId = await s.seed(orderId, { attempt: 1 });
    s.agents.set(
      orderId,
      scriptedAgent({
        refuse: 'ScheduleShipping',
        compensate: async (request) =>
          request.step === 'ChargePayment'
            ? void (await fail(request, '422 refund refused'))
            : s.succeed(request),
      }),
    );
    const before = s.alerts.length;
    const ended = await s.start(orderId, instanceId, 1);
    expect(ended).toMatchObject({ status: 'FAILED', error: 'CompensationFailed' });

    const item = await s.record(orderId);
    expect(item.ProcessState).toEqual({ S: ProcessState.CompensationFailed });
    expect(item.LockedBy).toBeUndefined();
    expect(item.DueShard).toBeUndefined();
    expect(item.LastError?.M).toMatchObject({
      Source: { S: 'RefundPayment' },
      Error: { S: AgentError.Permanent },
    });
    expect(logStatus(item, 'ChargePayment')).toBe('Failed');
    // The chain stopped there: the step before is not undone.
    expect(logStatus(item, 'ReserveInventory')).toBe('Recorded');
    expect(compensations(orderId).map((request) => request.step)).toEqual(['ChargePayment']);

    // The alert is written with the transition (AlertOutbox), under the id alertIdFor makes; the
    // state machine publishes nothing itself (the outbox relay does).
    expect(s.alerts.slice(before).flat()).toHaveLength(0);
    const alertId = alertIdFor(orderId, AlertType.CompensationFailed, 1);
    expect(item.AlertOutboxShard).toEqual({ S: ALERT_OUTBOX_SHARD });
    expect(Object.keys(item.AlertOutbox?.M ?? {})).toEqual([alertId]);
    expect(item.AlertOutbox?.M?.[alertId]?.M).toMatchObject({
      AlertId: { S: alertId },
      Type: { S: 'CompensationFailed' },
      Reason: { S: 'CompensationRefused' },
      CompensationFailureCount: { N: '0' },
      Step: { S: 'ChargePayment' },
      Attempt: { N: '1' },
      InstanceId: { S: instanceId },
      LastError: { M: expect.objectContaining({ Error: { S: AgentError.Permanent } }) },
    });
  });

  describe('the fence during compensation', () => {
    it('an execution whose lock was taken while a compensation was in flight changes nothing after it', async () => {
      const orderId = 'order-undo-fenced';
      const instanceId = await s.seed(orderId, { attempt: 1 });
      let stolen: Item | undefined;
      s.agents.set(
        orderId,
        scriptedAgent({
          refuse: 'ChargePayment',
          compensate: async (request) => {
            // The supervisor expires and unlocks this attempt while its agent is busy (the real
            // transition, fenced on what it read), then the late answer arrives.
            const [due] = (await store.queryDue('0', Number.MAX_SAFE_INTEGER, 100)).records.filter(
              (r) => r.orderId === orderId,
            );
            if (due === undefined) throw new Error('not in the index');
            await store.resetExpiredCompensation(due, {
              compensationFailureCount: 1,
              completeBy: Date.now() + 60_000,
              at: Date.now(),
            });
            stolen = await s.record(orderId);
            await s.succeed(request);
          },
        }),
      );
      const ended = await s.start(orderId, instanceId, 1);
      expect(ended.status).toBe('SUCCEEDED');
      expect(stolen?.LockedBy).toBeUndefined();
      expect(await s.record(orderId)).toEqual(stolen);
      expect(logStatus(stolen ?? {}, 'ReserveInventory')).toBe('Compensating');
    });

    it('an execution started with a stale instance id on a CompensationInProgress record is FencedOut and calls no agent', async () => {
      const orderId = 'order-undo-stale';
      await s.seed(orderId, {
        attempt: 2,
        processState: ProcessState.CompensationInProgress,
        steps: {
          ReserveInventory: { status: 'Completed', log: 'Recorded' },
          ChargePayment: { status: 'Failed' },
        },
      });
      const before = await s.record(orderId);
      s.agents.set(orderId, s.succeed);
      const ended = await s.start(orderId, `${orderId}--attempt-1`, 1);
      expect(ended.status).toBe('SUCCEEDED');
      expect(await s.record(orderId)).toEqual(before);
      expect(s.received.get(orderId)).toBeUndefined();
    });
  });

  describe('a cancelled order (unlocked CompensationInProgress) claimed by the starter', () => {
    /** The record an operator cancel leaves: unlocked CompensationInProgress, claimable now. */
    const cancelled = (steps: SeedOptions['steps'], attempt: number): SeedOptions => ({
      attempt,
      processState: ProcessState.CompensationInProgress,
      locked: false,
      steps,
      planOffsetMillis: -1_000,
    });

    async function claimAndRun(orderId: string) {
      const outcome = await startOrder(
        { orderId, reason: 'operator-cancel', correlationId: 'corr-cancel' },
        {
          states: store,
          orders: classicNeverReadsOrders,
          workflow: new SfnWorkflowStarter(s.h.client, new Map([[1, s.stateMachineArn]])),
          liveWorkflowVersions: [1],
          clock: { now: () => Date.now() },
          timings: config.timings,
          retry: {
            policy: { maxAttempts: 1, baseMillis: 1, capMillis: 1 },
            sleep: async () => {},
            random: Math.random,
          },
        },
      );
      expect(outcome).toMatchObject({ kind: 'started', claimed: true });
      if (outcome.kind !== 'started') throw new Error(outcome.kind);
      const ended = await waitForEnd(
        s.h.client,
        executionArn(outcome.instanceId),
        (stepTimeoutSeconds + 10) * 1000,
      );
      return { ended, attempt: outcome.attempt, item: await s.record(orderId) };
    }

    it('of a Processed order: every step undone, last first', async () => {
      const orderId = 'order-cancel-processed';
      const done = { status: 'Completed', log: 'Recorded' };
      await s.seed(
        orderId,
        cancelled({ ReserveInventory: done, ChargePayment: done, ScheduleShipping: done }, 1),
      );
      s.agents.set(orderId, s.succeed);
      const { ended, attempt, item } = await claimAndRun(orderId);
      expect(ended.status).toBe('SUCCEEDED');
      expect(attempt).toBe(2);
      expect(item.ProcessState).toEqual({ S: ProcessState.Compensated });
      expect(STEP_NAMES.map((step) => logStatus(item, step))).toEqual([
        'Compensated',
        'Compensated',
        'Compensated',
      ]);
      // A compensation claim plans compensation deadlines only.
      expect(Object.keys(item.Plan?.M ?? {}).sort()).toEqual(
        V1_STEPS.map((step) => step.compensation.name).sort(),
      );
      expectCompensationRequests(orderId, item, ['ScheduleShipping', 'ChargePayment', 'ReserveInventory'], 2);
      expect(requests(orderId).every((request) => request.action === 'compensate')).toBe(true);
    });

    it('of an Error order: the completed step undone, the TimedOut one undone just in case (Uncertain), the rest untouched', async () => {
      const orderId = 'order-cancel-error';
      await s.seed(
        orderId,
        cancelled(
          {
            ReserveInventory: { status: 'Completed', log: 'Recorded' },
            ChargePayment: { status: 'TimedOut' },
          },
          3,
        ),
      );
      // The downstream never recorded the charge: nothing to undo.
      s.agents.set(orderId, async (request) =>
        request.step === 'ChargePayment'
          ? void (await s.h.client.send(
              new SendTaskSuccessCommand({
                taskToken: request.taskToken,
                output: JSON.stringify({
                  confirmationId: 'undo-nothing',
                  service: 'payment',
                  idempotencyKey: request.idempotencyKey,
                  undone: false,
                }),
              }),
            ))
          : s.succeed(request),
      );
      const { ended, item } = await claimAndRun(orderId);
      expect(ended.status).toBe('SUCCEEDED');
      expect(item.ProcessState).toEqual({ S: ProcessState.Compensated });
      expect(STEP_NAMES.map((step) => stepStatus(item, step))).toEqual([
        'Compensated',
        'Compensated',
        'NotStarted',
      ]);
      expect(item.CompensationLog?.M?.ChargePayment?.M).toMatchObject({
        Seq: { N: '2' },
        Compensation: { S: 'RefundPayment' },
        Undoes: { S: `${orderId}:ChargePayment` },
        Uncertain: { BOOL: true },
        Status: { S: 'Compensated' },
        Result: { M: { ConfirmationId: { S: 'undo-nothing' }, Undone: { BOOL: false } } },
      });
      expect(item.CompensationLog?.M?.ChargePayment?.M?.ConfirmationId).toBeUndefined();
      expect(item.CompensationLog?.M?.ScheduleShipping).toBeUndefined();
      expectCompensationRequests(orderId, item, ['ChargePayment', 'ReserveInventory'], 4);
    });

    it('of a Pending order: nothing to undo, Compensated at once without calling any agent', async () => {
      const orderId = 'order-cancel-pending';
      await s.seed(orderId, cancelled({}, 0));
      s.agents.set(orderId, s.succeed);
      const { ended, item } = await claimAndRun(orderId);
      expect(ended.status).toBe('SUCCEEDED');
      expect(item.ProcessState).toEqual({ S: ProcessState.Compensated });
      expect(item.LockedBy).toBeUndefined();
      expect(item.DueShard).toBeUndefined();
      expect(STEP_NAMES.map((step) => stepStatus(item, step))).toEqual([
        'NotStarted',
        'NotStarted',
        'NotStarted',
      ]);
      expect(s.received.get(orderId)).toBeUndefined();
    });
  });

  function executionArn(name: string): string {
    return `${s.stateMachineArn.replace(':stateMachine:', ':execution:')}:${name}`;
  }
});
