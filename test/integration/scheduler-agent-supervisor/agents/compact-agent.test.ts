/**
 * Compact workflow versions (contracts/workflows.ts): the agent records its step Completed, and the
 * last step the order Processed, in one fenced write once its call succeeded, before it answers the
 * task token (AgentRequest.recordCompletion; adapters/step-completions.ts). The real agent handler
 * and the real adapter on DynamoDB Local, the remote service over HTTP, a scripted Step Functions.
 */
import { PutItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoStepCompletions } from '../../../../lambdas/scheduler-agent-supervisor/adapters/step-completions';
import {
  AgentError,
  CompensationAttr,
  CompensationStatus,
  ProcessState,
  STATE_SCHEMA_VERSION,
  StateAttr,
  StepAttr,
  StepResultAttr,
  StepStatus,
} from '../../../../lambdas/scheduler-agent-supervisor/contracts';
import type { StepCompletion } from '../../../../lambdas/scheduler-agent-supervisor/domain/ports';
import { systemClock } from '../../../../lambdas/shared/clock';
import {
  type AgentHandler,
  type AgentHarness,
  agentRequest,
  callbacksFor,
  invoke,
  ledgerEffectsFor,
  STATE_TABLE,
  sqsEvent,
  startAgentHarness,
  stateRecordItem,
  TEST_RETRY_BUDGET,
} from './harness';

const STEPS = ['ReserveInventory', 'ChargePayment', 'ScheduleShipping'];
const NEXT_DEADLINE = 4_102_444_800_000; // 2100-01-01: a value no other write puts there

describe('compact versions: the agent records its step Completed (integration)', () => {
  let h: AgentHarness;
  let agent: AgentHandler;

  beforeAll(async () => {
    h = await startAgentHarness({ stallMillis: 0 });
    agent = await h.loadAgent({ step: 'ChargePayment', auth: 'none' });
  });
  afterAll(async () => {
    await h?.stop();
  });

  /** A Processing record as a claim leaves it: locked, in the supervisor's index, its log empty. */
  async function seedClaimed(orderId: string, lockedBy: string | undefined): Promise<void> {
    await h.dynamo.send(
      new PutItemCommand({
        TableName: STATE_TABLE,
        Item: {
          [StateAttr.OrderId]: { S: orderId },
          [StateAttr.SchemaVersion]: { N: String(STATE_SCHEMA_VERSION) },
          [StateAttr.ProcessState]: { S: ProcessState.Processing },
          ...(lockedBy !== undefined && { [StateAttr.LockedBy]: { S: lockedBy } }),
          [StateAttr.DueShard]: { S: '3' },
          [StateAttr.CompleteBy]: { N: '1' },
          [StateAttr.Steps]: {
            M: Object.fromEntries(
              STEPS.map((step) => [step, { M: { [StepAttr.Status]: { S: StepStatus.NotStarted } } }]),
            ),
          },
          [StateAttr.CompensationLog]: { M: {} },
          [StateAttr.RetryBudget]: { N: String(TEST_RETRY_BUDGET) },
          [StateAttr.CallsMade]: { M: {} },
        },
      }),
    );
  }

  const recordOf = (orderId: string) => stateRecordItem(h.dynamo, orderId);

  const compactRequest = (
    recordCompletion: NonNullable<ReturnType<typeof agentRequest>['recordCompletion']>,
  ) => agentRequest({ markRunning: true, recordCompletion });

  it('records the step Completed with its result and compensation entry, hands CompleteBy to the next step, then answers', async () => {
    const request = compactRequest({ seq: 2, nextDeadlineEpochMillis: NEXT_DEADLINE });
    await seedClaimed(request.orderId, request.instanceId);

    await invoke(agent, sqsEvent([request]));

    const [answer] = callbacksFor(h.sfn, request.taskToken);
    expect(answer?.operation).toBe('SendTaskSuccess');
    const confirmationId = JSON.parse(String(answer?.body.output)).confirmationId as string;
    const record = await recordOf(request.orderId);
    const step = record?.[StateAttr.Steps]?.M?.ChargePayment?.M;
    expect(step?.[StepAttr.Status]?.S).toBe(StepStatus.Completed);
    expect(step?.[StepAttr.Result]?.M?.[StepResultAttr.ConfirmationId]?.S).toBe(confirmationId);
    expect(record?.[StateAttr.CompensationLog]?.M?.ChargePayment?.M).toEqual({
      [CompensationAttr.Seq]: { N: '2' },
      [CompensationAttr.Compensation]: { S: 'RefundPayment' },
      [CompensationAttr.Undoes]: { S: `${request.orderId}:ChargePayment` },
      [CompensationAttr.ConfirmationId]: { S: confirmationId },
      [CompensationAttr.Status]: { S: CompensationStatus.Recorded },
      [CompensationAttr.RecordedAt]: { S: step?.[StepAttr.CompletedAt]?.S },
    });
    expect(record?.[StateAttr.RunningStep]).toBeUndefined();
    expect(record?.[StateAttr.CompleteBy]?.N).toBe(String(NEXT_DEADLINE));
    // Still the execution's order: Processing, locked, in the supervisor's index.
    expect(record?.[StateAttr.ProcessState]?.S).toBe(ProcessState.Processing);
    expect(record?.[StateAttr.LockedBy]?.S).toBe(request.instanceId);
    expect(record?.[StateAttr.DueShard]?.S).toBe('3');
  });

  it("makes the order Processed, unlocked and out of the supervisor's index with the last step's completion", async () => {
    const request = compactRequest({ seq: 3, finishesOrder: true });
    await seedClaimed(request.orderId, request.instanceId);

    await invoke(agent, sqsEvent([request]));

    expect(callbacksFor(h.sfn, request.taskToken).map((call) => call.operation)).toEqual(['SendTaskSuccess']);
    const record = await recordOf(request.orderId);
    expect(record?.[StateAttr.ProcessState]?.S).toBe(ProcessState.Processed);
    expect(record?.[StateAttr.LockedBy]).toBeUndefined();
    expect(record?.[StateAttr.DueShard]).toBeUndefined();
    expect(record?.[StateAttr.RunningStep]).toBeUndefined();
    expect(record?.[StateAttr.Steps]?.M?.ChargePayment?.M?.[StepAttr.Status]?.S).toBe(StepStatus.Completed);
  });

  it('a redelivered request finds its completion recorded: one effect, one write, both tokens answered', async () => {
    const request = compactRequest({ seq: 2, nextDeadlineEpochMillis: NEXT_DEADLINE });
    await seedClaimed(request.orderId, request.instanceId);
    await invoke(agent, sqsEvent([request]));
    const first = await recordOf(request.orderId);

    const again = { ...request, taskToken: `${request.taskToken}-again` };
    await invoke(agent, sqsEvent([again]));

    expect(callbacksFor(h.sfn, again.taskToken).map((call) => call.operation)).toEqual(['SendTaskSuccess']);
    expect(await ledgerEffectsFor(h.dynamo, request.idempotencyKey)).toBe(1);
    // The second delivery's reservation marked the step Running again (as any lean redelivery
    // does); its completion then found the step Completed and changed nothing more.
    const second = await recordOf(request.orderId);
    expect(second?.[StateAttr.CompensationLog]).toEqual(first?.[StateAttr.CompensationLog]);
    expect(second?.[StateAttr.Steps]?.M?.ChargePayment?.M?.[StepAttr.Result]).toEqual(
      first?.[StateAttr.Steps]?.M?.ChargePayment?.M?.[StepAttr.Result],
    );
  });

  it('refuses recordCompletion on a request without markRunning, calling nothing', async () => {
    const request = agentRequest({ recordCompletion: { seq: 2, finishesOrder: true } });
    await seedClaimed(request.orderId, request.instanceId);

    const response = await invoke(agent, sqsEvent([request]));

    expect(response.batchItemFailures).toHaveLength(1);
    expect(await ledgerEffectsFor(h.dynamo, request.idempotencyKey)).toBe(0);
  });

  describe('the completion write (DynamoStepCompletions)', () => {
    const completions = () =>
      new DynamoStepCompletions(DynamoDBDocumentClient.from(h.dynamo), STATE_TABLE, systemClock);
    const completion = (orderId: string, instanceId: string): StepCompletion => ({
      orderId,
      instanceId,
      step: 'ChargePayment',
      seq: 2,
      compensation: 'RefundPayment',
      undoes: `${orderId}:ChargePayment`,
      confirmationId: 'pay-1',
      after: { kind: 'hand-over', completeBy: NEXT_DEADLINE },
    });
    /** The record as the step's reservation leaves it: the step Running and the RunningStep. */
    async function markRunning(orderId: string): Promise<void> {
      await h.dynamo.send(
        new UpdateItemCommand({
          TableName: STATE_TABLE,
          Key: { [StateAttr.OrderId]: { S: orderId } },
          UpdateExpression: 'SET #steps.#step.#status = :running, #runningStep = :step',
          ExpressionAttributeNames: {
            '#steps': StateAttr.Steps,
            '#step': 'ChargePayment',
            '#status': StepAttr.Status,
            '#runningStep': StateAttr.RunningStep,
          },
          ExpressionAttributeValues: {
            ':running': { S: StepStatus.Running },
            ':step': { S: 'ChargePayment' },
          },
        }),
      );
    }

    it('is fenced when another attempt holds the lock: nothing written, the reason names both', async () => {
      await seedClaimed('order-fenced-1', 'order-fenced-1--attempt-2');
      await markRunning('order-fenced-1');
      const before = await recordOf('order-fenced-1');

      const outcome = await completions().record(completion('order-fenced-1', 'order-fenced-1--attempt-1'));

      expect(outcome).toEqual({
        kind: 'fenced',
        detail: expect.stringContaining(
          "locked by 'order-fenced-1--attempt-2', not by 'order-fenced-1--attempt-1': ChargePayment not recorded Completed",
        ),
      });
      expect(await recordOf('order-fenced-1')).toEqual(before);
    });

    it('is fenced when the supervisor took the order back (unlocked, Pending), changing nothing', async () => {
      await seedClaimed('order-fenced-2', undefined);
      await markRunning('order-fenced-2');
      const before = await recordOf('order-fenced-2');

      const outcome = await completions().record(completion('order-fenced-2', 'order-fenced-2--attempt-1'));

      expect(outcome).toEqual({ kind: 'fenced', detail: expect.stringContaining('locked by nobody') });
      expect(await recordOf('order-fenced-2')).toEqual(before);
    });

    it.each([
      ['NotStarted', StepStatus.NotStarted],
      ['TimedOut (an expired attempt)', StepStatus.TimedOut],
    ])(
      'records a step still %s: a replayed answer makes no reservation, so nothing marked it Running',
      async (_case, status) => {
        const orderId = `order-replayed-${status}`;
        await seedClaimed(orderId, `${orderId}--attempt-2`);
        await h.dynamo.send(
          new UpdateItemCommand({
            TableName: STATE_TABLE,
            Key: { [StateAttr.OrderId]: { S: orderId } },
            UpdateExpression: 'SET #steps.#step.#status = :status',
            ExpressionAttributeNames: {
              '#steps': StateAttr.Steps,
              '#step': 'ChargePayment',
              '#status': StepAttr.Status,
            },
            ExpressionAttributeValues: { ':status': { S: status } },
          }),
        );

        expect(await completions().record(completion(orderId, `${orderId}--attempt-2`))).toEqual({
          kind: 'recorded',
        });
        const record = await recordOf(orderId);
        expect(record?.[StateAttr.Steps]?.M?.ChargePayment?.M?.[StepAttr.Status]?.S).toBe(
          StepStatus.Completed,
        );
        expect(
          record?.[StateAttr.CompensationLog]?.M?.ChargePayment?.M?.[CompensationAttr.ConfirmationId]?.S,
        ).toBe('pay-1');
      },
    );

    it('records once: a second write of the same completion is already-recorded and changes nothing', async () => {
      await seedClaimed('order-twice', 'order-twice--attempt-1');
      await markRunning('order-twice');
      const writer = completions();

      expect(await writer.record(completion('order-twice', 'order-twice--attempt-1'))).toEqual({
        kind: 'recorded',
      });
      const after = await recordOf('order-twice');
      expect(await writer.record(completion('order-twice', 'order-twice--attempt-1'))).toEqual({
        kind: 'already-recorded',
      });
      expect(await recordOf('order-twice')).toEqual(after);
    });

    it('answers already-recorded for a finished order (its lock gone with the completion that finished it)', async () => {
      await seedClaimed('order-done', 'order-done--attempt-1');
      await markRunning('order-done');
      const writer = completions();
      const last: StepCompletion = {
        ...completion('order-done', 'order-done--attempt-1'),
        after: { kind: 'finish-order' },
      };

      expect(await writer.record(last)).toEqual({ kind: 'recorded' });
      expect(await writer.record(last)).toEqual({ kind: 'already-recorded' });
      expect((await recordOf('order-done'))?.[StateAttr.ProcessState]?.S).toBe(ProcessState.Processed);
    });
  });

  it('answers Agent.FencedOut when the completion write is fenced, keeping the effect for the next attempt', async () => {
    const request = compactRequest({ seq: 2, nextDeadlineEpochMillis: NEXT_DEADLINE });
    await seedClaimed(request.orderId, request.instanceId);
    // The call is made and recorded by the idempotency store (a first delivery whose completion was
    // lost with a crash); then a newer attempt takes the lock; the redelivery gets the stored result,
    // and its completion write is fenced.
    const classic = { ...request, recordCompletion: undefined, markRunning: undefined };
    await invoke(agent, sqsEvent([{ ...classic, taskToken: `${request.taskToken}-first` }]));
    await h.dynamo.send(
      new UpdateItemCommand({
        TableName: STATE_TABLE,
        Key: { [StateAttr.OrderId]: { S: request.orderId } },
        UpdateExpression: 'SET #lockedBy = :other',
        ExpressionAttributeNames: { '#lockedBy': StateAttr.LockedBy },
        ExpressionAttributeValues: { ':other': { S: `${request.orderId}--attempt-2` } },
      }),
    );

    await invoke(agent, sqsEvent([request]));

    expect(callbacksFor(h.sfn, request.taskToken)).toEqual([
      expect.objectContaining({
        operation: 'SendTaskFailure',
        body: expect.objectContaining({ error: AgentError.FencedOut }),
      }),
    ]);
    expect(await ledgerEffectsFor(h.dynamo, request.idempotencyKey)).toBe(1);
    expect(
      (await recordOf(request.orderId))?.[StateAttr.Steps]?.M?.ChargePayment?.M?.[StepAttr.Status]?.S,
    ).toBe(StepStatus.NotStarted);
  });
});
