/**
 * The fence of the scheduler, on a real DynamoDB emulator: the UpdateItem requests the state
 * machine would send (rendered from the synthesized definition, resolved against a sample
 * execution state) succeed for the instance holding the lock and are rejected, changing
 * nothing, for a stale instance. Both writers come from one table (STATE_TRANSITIONS): the SDK
 * rendering of a scheduler transition has the state machine's effect, and the state store
 * adapter sends the table's expressions for the starter's and the supervisor's transitions.
 */
import {
  type AttributeValue,
  CreateTableCommand,
  type CreateTableCommandInput,
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  UpdateItemCommand,
  type UpdateItemCommandInput,
} from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, UpdateCommand, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import {
  DynamoStateStore,
  transitionUpdate,
} from '../../../lambdas/scheduler-agent-supervisor/adapters/state-store';
import {
  AlertType,
  alertIdFor,
  DEFAULT_WORKFLOW_VERSION,
  ProcessState,
  renderTransition,
  STATE_TRANSITIONS,
  TRANSITION_NAMES,
  type TransitionName,
  workflowSteps,
} from '../../../lambdas/scheduler-agent-supervisor/contracts';
import type { DueRecord } from '../../../lambdas/scheduler-agent-supervisor/domain/ports';
import { allStates } from '../../../lib/platform/guardrails';
import { resolveParameters } from '../../infra/support/asl-parameters';
import { stateMachineDefinition, synthesizeStack } from '../../infra/support/synth';
import { dynamoClient, type RunningEmulator, startDynamoDbLocal } from '../../support/emulators';

/** The steps of an order on the default workflow version (what these tests deploy). */
const V1_STEPS = workflowSteps(DEFAULT_WORKFLOW_VERSION);

const ORDER_ID = 'order-42';
const HOLDER = `${ORDER_ID}--attempt-2`;
const STALE = `${ORDER_ID}--attempt-1`;
const PLAN_MILLIS = 1_900_000_000_000;
const [FIRST_STEP] = V1_STEPS;

const COMPENSATIONS = V1_STEPS.map((s) => s.compensation.name);

/** A Recorded compensation log entry of a completed step. */
function logEntry(step: (typeof V1_STEPS)[number], seq: number): AttributeValue {
  return {
    M: {
      Seq: { N: String(seq) },
      Compensation: { S: step.compensation.name },
      Undoes: { S: `${ORDER_ID}:${step.name}` },
      ConfirmationId: { S: `conf-${step.name}` },
      Status: { S: 'Recorded' },
      RecordedAt: { S: '2030-01-01T00:00:01.000Z' },
    },
  };
}

/**
 * What a state's holder finds: a Processing record for the steps; for the compensation chain a
 * CompensationInProgress one, whose log has an entry for every step but the uncertain one.
 */
function holderRecord(state: string): Record<string, AttributeValue> {
  if (!state.includes('.Undo.') && state !== 'MarkCompensated') return claimedRecord();
  const uncertain = state.endsWith('.Undo.MarkUncertain');
  return {
    ...claimedRecord(),
    ProcessState: { S: 'CompensationInProgress' },
    CompensationLog: {
      M: uncertain ? {} : Object.fromEntries(V1_STEPS.map((s, k) => [s.name, logEntry(s, k + 1)])),
    },
  };
}

/** The record as the starter leaves it after claiming attempt 2 (attempt 1 expired). */
function claimedRecord(): Record<string, AttributeValue> {
  return {
    OrderID: { S: ORDER_ID },
    ProcessState: { S: 'Processing' },
    LockedBy: { S: HOLDER },
    CompleteBy: { N: String(PLAN_MILLIS) },
    DueShard: { S: '3' },
    FailureCount: { N: '1' },
    Attempt: { N: '2' },
    Steps: {
      M: Object.fromEntries(V1_STEPS.map((s) => [s.name, { M: { Status: { S: 'NotStarted' } } }])),
    },
    Plan: {
      M: Object.fromEntries(
        [...V1_STEPS.map((s) => s.name), ...COMPENSATIONS].map((name, k) => [
          name,
          { N: String(PLAN_MILLIS + k * 8000) },
        ]),
      ),
    },
    CompensationLog: { M: {} },
    CompensationFailureCount: { N: '0' },
    // The claim creates the alert outbox (the alert-raising transitions SET their entry in it).
    AlertOutbox: { M: {} },
    SchemaVersion: { N: '2' },
    WorkflowVersion: { N: '1' },
    CreatedAt: { S: '2030-01-01T00:00:00.000Z' },
    UpdatedAt: { S: '2030-01-01T00:00:00.000Z' },
  };
}

describe('fenced store updates of the synthesized state machine (DynamoDB Local)', () => {
  let dynamo: RunningEmulator;
  let client: DynamoDBClient;
  let tableName: string;
  let parametersOf: (state: string) => Record<string, unknown>;
  let statesComment: (state: string) => unknown;
  let tableToken: string;
  let tableSchema: Omit<CreateTableCommandInput, 'TableName'>;
  let fencedUpdates: string[];
  let tables = 0;

  beforeAll(async () => {
    dynamo = await startDynamoDbLocal();
    client = dynamoClient(dynamo.endpoint);
    const { template, stack } = synthesizeStack('local');
    // The classic shape (v1): its updates are a superset of the lean shape's (MarkRunning included).
    const states = allStates(stateMachineDefinition(template, 1));
    parametersOf = (name) => {
      const parameters = states.get(name)?.Parameters;
      if (!parameters) throw new Error(`No Parameters on state ${name}`);
      return parameters;
    };
    statesComment = (name) => states.get(name)?.Comment;
    const stateTableId = stack.resolve(stack.stateStore.table.tableName) as { Ref: string };
    tableToken = `{{Ref:${stateTableId.Ref}}}`;
    // Create the table from the template's own key schema and index, not from a copy of it.
    const resource = template.toJSON().Resources[stateTableId.Ref].Properties;
    tableSchema = {
      AttributeDefinitions: resource.AttributeDefinitions,
      KeySchema: resource.KeySchema,
      BillingMode: resource.BillingMode,
      GlobalSecondaryIndexes: resource.GlobalSecondaryIndexes,
    };
    fencedUpdates = [...states]
      .filter(([, state]) => state.Resource?.endsWith(':states:::dynamodb:updateItem'))
      .map(([name]) => name);
  });

  beforeEach(async () => {
    tableName = `state-${++tables}`;
    await client.send(new CreateTableCommand({ ...tableSchema, TableName: tableName }));
    await client.send(new PutItemCommand({ TableName: tableName, Item: claimedRecord() }));
  });

  afterAll(async () => {
    await dynamo.stop();
  });

  /** The request a state would send for an execution started as `instanceId`. */
  function request(state: string, instanceId: string): UpdateItemCommandInput {
    const input = {
      orderId: ORDER_ID,
      instanceId,
      attempt: Number(instanceId.slice(-1)),
      correlationId: 'corr-1',
      workflowVersion: 1,
      record: { Item: claimedRecord() },
      results: Object.fromEntries(V1_STEPS.map((s) => [s.name, { confirmationId: `conf-${s.name}` }])),
      compensations: Object.fromEntries(
        V1_STEPS.map((s) => [s.name, { confirmationId: `undo-${s.name}`, undone: true }]),
      ),
      failedStep: FIRST_STEP.name,
      error: { Error: 'Agent.PermanentFailure', Cause: '{"status":422}' },
    };
    const resolved = resolveParameters(parametersOf(state), {
      input,
      context: { State: { EnteredTime: '2030-01-01T00:00:05.000Z' } },
    }) as UpdateItemCommandInput;
    expect(resolved.TableName).toBe(tableToken);
    return { ...resolved, TableName: tableName };
  }

  const read = async () =>
    (
      await client.send(
        new GetItemCommand({ TableName: tableName, Key: { OrderID: { S: ORDER_ID } }, ConsistentRead: true }),
      )
    ).Item;

  it(`${FIRST_STEP.name}.MarkRunning: the holder marks the step Running with the planned deadline`, async () => {
    await client.send(new UpdateItemCommand(request(`${FIRST_STEP.name}.MarkRunning`, HOLDER)));
    const item = await read();
    expect(item?.Steps?.M?.[FIRST_STEP.name]?.M).toEqual({
      Status: { S: 'Running' },
      StartedAt: { S: '2030-01-01T00:00:05.000Z' },
    });
    expect(item?.RunningStep).toEqual({ S: FIRST_STEP.name });
    expect(item?.CompleteBy).toEqual({ N: String(PLAN_MILLIS) });
    expect(item?.LockedBy).toEqual({ S: HOLDER });
  });

  it(`${FIRST_STEP.name}.MarkCompleted: the step and its compensation log entry in one write, RunningStep removed`, async () => {
    await client.send(new UpdateItemCommand(request(`${FIRST_STEP.name}.MarkRunning`, HOLDER)));
    await client.send(new UpdateItemCommand(request(`${FIRST_STEP.name}.MarkCompleted`, HOLDER)));
    const item = await read();
    expect(item?.Steps?.M?.[FIRST_STEP.name]?.M?.Status).toEqual({ S: 'Completed' });
    expect(item?.CompensationLog?.M?.[FIRST_STEP.name]).toEqual({
      M: {
        Seq: { N: '1' },
        Compensation: { S: FIRST_STEP.compensation.name },
        Undoes: { S: `${ORDER_ID}:${FIRST_STEP.name}` },
        ConfirmationId: { S: `conf-${FIRST_STEP.name}` },
        Status: { S: 'Recorded' },
        RecordedAt: { S: '2030-01-01T00:00:05.000Z' },
      },
    });
    expect(item?.RunningStep).toBeUndefined();
  });

  it('the compensation chain: a stale instance is rejected at every update of a CompensationInProgress record', async () => {
    const compensating = fencedUpdates.filter(
      (state) => state.includes('.Undo.') || state === 'MarkCompensated',
    );
    expect(compensating).toHaveLength(4 * V1_STEPS.length + 1);
    for (const state of compensating) {
      await client.send(new PutItemCommand({ TableName: tableName, Item: holderRecord(state) }));
      const before = await read();
      await expect(client.send(new UpdateItemCommand(request(state, STALE)))).rejects.toMatchObject({
        name: 'ConditionalCheckFailedException',
      });
      expect({ state, item: await read() }).toEqual({ state, item: before });
    }
  });

  it('the compensation chain: the holder is rejected once the record is no longer CompensationInProgress', async () => {
    for (const state of fencedUpdates.filter((s) => s.includes('.Undo.'))) {
      await client.send(
        new PutItemCommand({
          TableName: tableName,
          Item: { ...holderRecord(state), ProcessState: { S: 'CompensationFailed' } },
        }),
      );
      await expect(client.send(new UpdateItemCommand(request(state, HOLDER)))).rejects.toMatchObject({
        name: 'ConditionalCheckFailedException',
      });
    }
  });

  it(`${FIRST_STEP.name}.MarkRunning: a stale instance is rejected and changes nothing`, async () => {
    const before = await read();
    await expect(
      client.send(new UpdateItemCommand(request(`${FIRST_STEP.name}.MarkRunning`, STALE))),
    ).rejects.toMatchObject({ name: 'ConditionalCheckFailedException' });
    expect(await read()).toEqual(before);
  });

  it('MarkProcessed: the holder sets Processed and removes LockedBy and DueShard', async () => {
    await client.send(new UpdateItemCommand(request('MarkProcessed', HOLDER)));
    const item = await read();
    expect(item?.ProcessState).toEqual({ S: 'Processed' });
    expect(item?.LockedBy).toBeUndefined();
    expect(item?.DueShard).toBeUndefined();
    expect(item?.UpdatedAt).toEqual({ S: '2030-01-01T00:00:05.000Z' });
  });

  it('MarkProcessed: a stale instance is rejected and changes nothing', async () => {
    const before = await read();
    await expect(client.send(new UpdateItemCommand(request('MarkProcessed', STALE)))).rejects.toMatchObject({
      name: 'ConditionalCheckFailedException',
    });
    expect(await read()).toEqual(before);
  });

  it('MarkProcessed: even the former holder is rejected once the supervisor reset the record to Pending', async () => {
    await client.send(
      new UpdateItemCommand({
        TableName: tableName,
        Key: { OrderID: { S: ORDER_ID } },
        UpdateExpression: 'SET ProcessState = :pending REMOVE LockedBy',
        ExpressionAttributeValues: { ':pending': { S: 'Pending' } },
      }),
    );
    const before = await read();
    await expect(client.send(new UpdateItemCommand(request('MarkProcessed', HOLDER)))).rejects.toMatchObject({
      name: 'ConditionalCheckFailedException',
    });
    expect(await read()).toEqual(before);
  });

  it('every fenced update of the definition: a stale instance is rejected and changes nothing', async () => {
    expect(fencedUpdates.length).toBe(7 * V1_STEPS.length + 2);
    for (const state of fencedUpdates) {
      const before = await read();
      await expect(client.send(new UpdateItemCommand(request(state, STALE)))).rejects.toMatchObject({
        name: 'ConditionalCheckFailedException',
      });
      expect({ state, item: await read() }).toEqual({ state, item: before });
    }
  });

  it('every fenced update of the definition succeeds for the holder', async () => {
    for (const state of fencedUpdates) {
      await client.send(new PutItemCommand({ TableName: tableName, Item: holderRecord(state) }));
      await expect(client.send(new UpdateItemCommand(request(state, HOLDER)))).resolves.toBeDefined();
    }
  });

  it(`${FIRST_STEP.name}.BeginCompensation: the holder keeps its lock, the step Failed, CompensationInProgress with LastError`, async () => {
    await client.send(new UpdateItemCommand(request(`${FIRST_STEP.name}.BeginCompensation`, HOLDER)));
    const item = await read();
    expect(item?.ProcessState).toEqual({ S: 'CompensationInProgress' });
    expect(item?.Steps?.M?.[FIRST_STEP.name]?.M?.Status).toEqual({ S: 'Failed' });
    expect(item?.LastError?.M).toMatchObject({
      Source: { S: FIRST_STEP.name },
      Error: { S: 'Agent.PermanentFailure' },
      Cause: { S: JSON.stringify({ Error: 'Agent.PermanentFailure', Cause: '{"status":422}' }) },
    });
    expect(item?.LockedBy).toEqual({ S: HOLDER });
    expect(item?.DueShard).toEqual({ S: '3' });
    // The first compensation to run is the last step's.
    expect(item?.CompleteBy).toEqual(item?.Plan?.M?.[COMPENSATIONS[COMPENSATIONS.length - 1] as string]);
  });

  describe('one table, two writers', () => {
    const NOW = '2030-01-01T00:00:05.000Z';
    const AGENT_ERROR = { Error: 'Agent.PermanentFailure', Cause: '{"status":422}' };
    /** The values the state machine binds for the sample execution of request(), by transition. */
    const sdkValues = (transition: TransitionName, step: string | undefined) => {
      const index = V1_STEPS.findIndex((s) => s.name === step);
      switch (transition) {
        case 'markStepRunning':
          return { instanceId: HOLDER, now: NOW, runningStep: step, completeBy: PLAN_MILLIS + index * 8000 };
        case 'markStepCompleted':
          return {
            instanceId: HOLDER,
            now: NOW,
            result: { ConfirmationId: `conf-${step}` },
            seq: index + 1,
            compensation: V1_STEPS[index]?.compensation.name,
            undoes: `${ORDER_ID}:${step}`,
            confirmationId: `conf-${step}`,
          };
        case 'markProcessed':
          return { instanceId: HOLDER, now: NOW };
        case 'beginCompensation':
          return {
            instanceId: HOLDER,
            now: NOW,
            completeBy: PLAN_MILLIS + (2 * V1_STEPS.length - 1) * 8000,
            lastError: {
              Source: step,
              Error: AGENT_ERROR.Error,
              Cause: JSON.stringify(AGENT_ERROR),
              At: NOW,
            },
          };
        case 'markCompensating':
          return {
            instanceId: HOLDER,
            now: NOW,
            completeBy: PLAN_MILLIS + (V1_STEPS.length + index) * 8000,
          };
        case 'markCompensatingUncertain':
          return {
            instanceId: HOLDER,
            now: NOW,
            seq: index + 1,
            compensation: V1_STEPS[index]?.compensation.name,
            undoes: `${ORDER_ID}:${step}`,
            completeBy: PLAN_MILLIS + (V1_STEPS.length + index) * 8000,
          };
        case 'markStepCompensated':
          return { instanceId: HOLDER, now: NOW, result: { ConfirmationId: `undo-${step}`, Undone: true } };
        case 'markCompensated':
          return { instanceId: HOLDER, now: NOW };
        case 'markCompensationFailed':
          return {
            instanceId: HOLDER,
            now: NOW,
            lastError: {
              Source: V1_STEPS[index]?.compensation.name,
              Error: AGENT_ERROR.Error,
              Cause: JSON.stringify(AGENT_ERROR),
              At: NOW,
            },
            // The alert, as the ASL binds it from the execution (sample input above) and the record.
            alertId: alertIdFor(ORDER_ID, AlertType.CompensationFailed, 2),
            attempt: 2,
            correlationId: 'corr-1',
            compensationFailureCount: 0,
            failedStep: FIRST_STEP.name,
          };
        default:
          throw new Error(`${transition} is not a scheduler transition`);
      }
    };

    it('every scheduler transition rendered for the SDK has the same effect as the state machine request', async () => {
      const doc = DynamoDBDocumentClient.from(client);
      for (const state of fencedUpdates) {
        const transition = /\(transition (\w+)\)\.$/.exec(
          String(statesComment(state)),
        )?.[1] as TransitionName;
        const step = V1_STEPS.find((s) => state.startsWith(`${s.name}.`))?.name;
        await client.send(new PutItemCommand({ TableName: tableName, Item: holderRecord(state) }));
        await client.send(new UpdateItemCommand(request(state, HOLDER)));
        const byStateMachine = await read();

        await client.send(new PutItemCommand({ TableName: tableName, Item: holderRecord(state) }));
        const values = sdkValues(transition, step) as never;
        await doc.send(
          new UpdateCommand({
            TableName: tableName,
            ...transitionUpdate(transition, ORDER_ID, values, step === undefined ? {} : { step }),
          }),
        );
        expect({ state, item: await read() }).toEqual({ state, item: byStateMachine });
      }
    });

    it('the state store adapter sends the table expressions of every starter and supervisor transition', async () => {
      const sent: UpdateCommandInput[] = [];
      const doc = DynamoDBDocumentClient.from(client);
      doc.middlewareStack.add(
        (next) => async (args) => {
          if ('UpdateExpression' in (args.input as object)) sent.push(args.input as UpdateCommandInput);
          return next(args);
        },
        { step: 'initialize', name: 'recordUpdates' },
      );
      const store = new DynamoStateStore(doc, tableName);
      const at = Date.parse(NOW);
      const plan = Object.fromEntries(V1_STEPS.map((s, k) => [s.name, PLAN_MILLIS + k * 8000]));
      const pending = { ...claimedRecord(), ProcessState: { S: 'Pending' }, Attempt: { N: '1' } };
      delete (pending as Record<string, unknown>).LockedBy;
      await client.send(new PutItemCommand({ TableName: tableName, Item: pending }));

      const applied: Record<string, string> = {};
      /** The step a step-bound transition was rendered for. */
      const steps: Record<string, string> = {};
      applied.claim = await store.claim({
        kind: 'steps',
        orderId: ORDER_ID,
        seenAttempt: 1,
        attempt: 2,
        instanceId: HOLDER,
        claimableUntilCompleteBy: PLAN_MILLIS,
        plan,
        completeBy: PLAN_MILLIS,
        at,
      });
      applied.release = await store.release({
        kind: 'steps',
        orderId: ORDER_ID,
        instanceId: HOLDER,
        attempt: 2,
        claimedAt: at,
        restoredAttempt: 1,
        completeBy: PLAN_MILLIS,
        at: at + 1,
      });
      const due = (overrides: Partial<DueRecord>): DueRecord => ({
        orderId: ORDER_ID,
        processState: ProcessState.Pending,
        completeBy: PLAN_MILLIS,
        failureCount: 1,
        attempt: 1,
        compensationFailureCount: 0,
        ...overrides,
      });
      applied.restartPending = await store.restartPending(due({}), {
        completeBy: PLAN_MILLIS + 1,
        at: at + 2,
      });
      const expired = due({ processState: ProcessState.Processing, lockedBy: HOLDER, attempt: 2 });
      await client.send(new PutItemCommand({ TableName: tableName, Item: claimedRecord() }));
      applied.resetExpired = await store.resetExpired(expired, {
        failureCount: 2,
        completeBy: PLAN_MILLIS + 5,
        at,
      });
      const lastError = { source: 'supervisor', error: 'FailureThresholdReached', cause: 'expired', at: NOW };
      const correlationId = 'supervisor-run-1';
      await client.send(new PutItemCommand({ TableName: tableName, Item: claimedRecord() }));
      applied.failExpired = await store.failExpired(expired, {
        failureCount: 2,
        lastError,
        at,
        correlationId,
      });

      const running = { ...claimedRecord(), RunningStep: { S: FIRST_STEP.name } };
      const expiredInStep = { ...expired, runningStep: FIRST_STEP.name };
      await client.send(new PutItemCommand({ TableName: tableName, Item: running }));
      applied.resetExpiredInStep = await store.resetExpired(expiredInStep, {
        failureCount: 2,
        completeBy: PLAN_MILLIS + 5,
        at,
      });
      await client.send(new PutItemCommand({ TableName: tableName, Item: running }));
      applied.failExpiredInStep = await store.failExpired(expiredInStep, {
        failureCount: 2,
        lastError,
        at,
        correlationId,
      });
      steps.resetExpiredInStep = FIRST_STEP.name;
      steps.failExpiredInStep = FIRST_STEP.name;

      const compensating = { ...claimedRecord(), ProcessState: { S: 'CompensationInProgress' } };
      const unlocked: Record<string, AttributeValue> = { ...compensating, Attempt: { N: '1' } };
      delete unlocked.LockedBy;
      await client.send(new PutItemCommand({ TableName: tableName, Item: unlocked }));
      applied.claimCompensation = await store.claim({
        kind: 'compensation',
        orderId: ORDER_ID,
        seenAttempt: 1,
        attempt: 2,
        instanceId: HOLDER,
        claimableUntilCompleteBy: PLAN_MILLIS,
        plan,
        completeBy: PLAN_MILLIS,
        at,
      });
      applied.releaseCompensation = await store.release({
        kind: 'compensation',
        orderId: ORDER_ID,
        instanceId: HOLDER,
        attempt: 2,
        claimedAt: at,
        restoredAttempt: 1,
        completeBy: PLAN_MILLIS,
        at: at + 1,
      });
      applied.restartCompensation = await store.restartCompensation(
        due({ processState: ProcessState.CompensationInProgress }),
        { completeBy: PLAN_MILLIS + 1, at: at + 2 },
      );
      const expiredCompensation = due({
        processState: ProcessState.CompensationInProgress,
        lockedBy: HOLDER,
        attempt: 2,
      });
      await client.send(new PutItemCommand({ TableName: tableName, Item: compensating }));
      applied.resetExpiredCompensation = await store.resetExpiredCompensation(expiredCompensation, {
        compensationFailureCount: 1,
        completeBy: PLAN_MILLIS + 5,
        at,
      });
      await client.send(new PutItemCommand({ TableName: tableName, Item: compensating }));
      applied.failExpiredCompensation = await store.failExpiredCompensation(expiredCompensation, {
        compensationFailureCount: 1,
        lastError,
        at,
        correlationId,
      });

      // The operator's transitions have their own adapter and test (operator-actions.test.ts).
      const expected = TRANSITION_NAMES.filter((name) =>
        ['starter', 'supervisor'].includes(STATE_TRANSITIONS[name].by),
      );
      expect(Object.keys(applied).sort()).toEqual([...expected].sort());
      expect(Object.entries(applied)).toEqual(Object.keys(applied).map((name) => [name, 'applied']));
      expect(sent).toHaveLength(expected.length);
      for (const [index, name] of Object.keys(applied).entries()) {
        const step = steps[name];
        const rendered = renderTransition(name as TransitionName, step === undefined ? {} : { step });
        expect({ name, ...pickExpressions(sent[index]) }).toEqual({
          name,
          UpdateExpression: rendered.updateExpression,
          ConditionExpression: rendered.conditionExpression,
          // THIS_ALERT is named by the bound alertId (alertIdFor of the order, type and attempt).
          ExpressionAttributeNames: {
            ...rendered.names,
            ...(rendered.nameParams !== undefined && {
              '#alertId': expect.stringMatching(/^[^:]+:\w+Failed:2$/),
            }),
          },
        });
      }
    });
  });
});

function pickExpressions(input: UpdateCommandInput | undefined) {
  return {
    UpdateExpression: input?.UpdateExpression,
    ConditionExpression: input?.ConditionExpression,
    ExpressionAttributeNames: input?.ExpressionAttributeNames,
  };
}
