import type { APIGatewayProxyEvent } from 'aws-lambda';
import {
  readDueShardCount,
  readWorkflowTimings,
} from '../../../lambdas/scheduler-agent-supervisor/adapters/runtime-config';
import {
  stateRecordFromItem,
  stateRecordToItem,
} from '../../../lambdas/scheduler-agent-supervisor/adapters/state-record-item';
import { transitionUpdate } from '../../../lambdas/scheduler-agent-supervisor/adapters/state-store';
import {
  CompensationStatus,
  ProcessState,
  renderTransition,
  STATE_SCHEMA_VERSION,
  StepStatus,
} from '../../../lambdas/scheduler-agent-supervisor/contracts';
import type { StateRecord } from '../../../lambdas/scheduler-agent-supervisor/domain/state-record';
import {
  correlationIdOf,
  headerValue,
  internalErrorResponse,
  locationOf,
} from '../../../lambdas/shared/http';
import { loadConfig } from '../../../lib/scheduler-agent-supervisor/config';

function apiEvent(overrides: Partial<APIGatewayProxyEvent> = {}): APIGatewayProxyEvent {
  return {
    body: null,
    headers: {},
    multiValueHeaders: {},
    httpMethod: 'POST',
    isBase64Encoded: false,
    path: '/orders',
    pathParameters: null,
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    stageVariables: null,
    resource: '/orders',
    requestContext: { requestId: 'req-1', path: '/prod/orders' } as APIGatewayProxyEvent['requestContext'],
    ...overrides,
  };
}

describe('http adapter helpers', () => {
  it('finds headers whatever their casing', () => {
    expect(headerValue(apiEvent({ headers: { 'x-correlation-id': 'abc' } }), 'X-Correlation-Id')).toBe('abc');
    expect(headerValue(apiEvent(), 'X-Correlation-Id')).toBeUndefined();
  });

  it('uses a well-formed client correlation id, else the API request id, else the fallback', () => {
    expect(correlationIdOf(apiEvent({ headers: { 'X-Correlation-Id': 'trace-1' } }), 'fb')).toBe('trace-1');
    expect(correlationIdOf(apiEvent({ headers: { 'X-Correlation-Id': 'bad id <script>' } }), 'fb')).toBe(
      'req-1',
    );
    expect(
      correlationIdOf(apiEvent({ requestContext: {} as APIGatewayProxyEvent['requestContext'] }), 'fallback'),
    ).toBe('fallback');
  });

  it('builds Location from the stage-qualified request path', () => {
    expect(locationOf(apiEvent(), '/orders', 'order-1')).toBe('/prod/orders/order-1');
    expect(
      locationOf(
        apiEvent({ requestContext: {} as APIGatewayProxyEvent['requestContext'] }),
        '/orders',
        'a_b',
      ),
    ).toBe('/orders/a_b');
  });

  it('answers 500 with the correlation id and nothing else', () => {
    const response = internalErrorResponse('corr-9');
    expect(response.statusCode).toBe(500);
    expect(JSON.parse(response.body)).toEqual({ message: 'Internal error', correlationId: 'corr-9' });
    expect(response.headers).toMatchObject({ 'Content-Type': 'application/json' });
  });
});

describe('runtime configuration', () => {
  // Any valid profile will do; the local one is what npm start runs.
  const timings = loadConfig('local').timings;

  it('reads WORKFLOW_TIMINGS and names the variable when it is missing or invalid', () => {
    expect(readWorkflowTimings({ WORKFLOW_TIMINGS: JSON.stringify(timings) })).toEqual(timings);
    expect(() => readWorkflowTimings({})).toThrow(/WORKFLOW_TIMINGS/);
    expect(() => readWorkflowTimings({ WORKFLOW_TIMINGS: '{"maxFailures":0}' })).toThrow(
      /WORKFLOW_TIMINGS is invalid/,
    );
  });

  it.each(['0', '65', 'x', '1.5', ''])('rejects DUE_SHARD_COUNT=%p', (value) => {
    expect(() => readDueShardCount({ DUE_SHARD_COUNT: value })).toThrow(/DUE_SHARD_COUNT/);
  });

  it('reads a valid DUE_SHARD_COUNT', () => {
    expect(readDueShardCount({ DUE_SHARD_COUNT: '8' })).toBe(8);
  });
});

describe('state record item mapping', () => {
  const record: StateRecord = {
    orderId: 'order-1',
    processState: ProcessState.Error,
    completeBy: 1234,
    failureCount: 3,
    attempt: 3,
    steps: {
      ReserveInventory: {
        status: StepStatus.Completed,
        startedAt: 'a',
        completedAt: 'b',
        result: { ConfirmationId: 'x' },
      },
      ChargePayment: { status: StepStatus.Running, startedAt: 'c' },
      ScheduleShipping: { status: StepStatus.NotStarted },
    },
    plan: {
      ReserveInventory: 1,
      ChargePayment: 2,
      ScheduleShipping: 3,
      CancelShipment: 4,
      RefundPayment: 5,
      ReleaseInventory: 6,
    },
    runningStep: 'ChargePayment',
    compensationLog: {
      ReserveInventory: {
        seq: 1,
        compensation: 'ReleaseInventory',
        undoes: 'order-1:ReserveInventory',
        confirmationId: 'x',
        status: CompensationStatus.Compensated,
        recordedAt: 'b',
        compensatingAt: 'd',
        compensatedAt: 'e',
        result: { ConfirmationId: 'r', Undone: true },
      },
      ScheduleShipping: {
        seq: 3,
        compensation: 'CancelShipment',
        undoes: 'order-1:ScheduleShipping',
        status: CompensationStatus.Compensating,
        uncertain: true,
      },
    },
    compensationFailureCount: 1,
    orderFingerprint: 'fp',
    schemaVersion: STATE_SCHEMA_VERSION,
    workflowVersion: 1,
    createdAt: 'c',
    updatedAt: 'u',
    lastError: { source: 'supervisor', error: 'E', cause: 'C', at: 'T' },
  };

  it('round-trips a record through the stored attribute names', () => {
    const item = stateRecordToItem(record);
    expect(item).toMatchObject({
      OrderID: 'order-1',
      ProcessState: 'Error',
      CompleteBy: 1234,
      FailureCount: 3,
      Steps: { ReserveInventory: { Status: 'Completed', Result: { ConfirmationId: 'x' } } },
      LastError: { Source: 'supervisor', Error: 'E', Cause: 'C', At: 'T' },
      RunningStep: 'ChargePayment',
      CompensationFailureCount: 1,
      CompensationLog: {
        ReserveInventory: { Seq: 1, Status: 'Compensated', Result: { ConfirmationId: 'r', Undone: true } },
        ScheduleShipping: { Seq: 3, Status: 'Compensating', Uncertain: true },
      },
    });
    expect(stateRecordFromItem(JSON.parse(JSON.stringify(item)))).toEqual(record);
  });

  it('reads an item without CompensationLog or CompensationFailureCount as an empty log and no failures', () => {
    const item = JSON.parse(JSON.stringify(stateRecordToItem(record)));
    delete item.CompensationLog;
    delete item.CompensationFailureCount;
    delete item.RunningStep;
    const read = stateRecordFromItem(item);
    expect(read.compensationLog).toEqual({});
    expect(read.compensationFailureCount).toBe(0);
    expect(read.runningStep).toBeUndefined();
  });

  it.each<[string, Record<string, unknown>, RegExp]>([
    ['an unsupported schema version', { SchemaVersion: 99 }, /SchemaVersion 99; supported: 2, 3/],
    ['an unknown ProcessState', { ProcessState: 'Paused' }, /ProcessState is "Paused"/],
    ['a string CompleteBy', { CompleteBy: '12' }, /CompleteBy must be a number/],
    [
      'an unknown step status',
      { Steps: { ChargePayment: { Status: 'Done' } } },
      /Steps.ChargePayment.Status/,
    ],
    [
      'an unknown compensation status',
      { CompensationLog: { ChargePayment: { Seq: 2, Compensation: 'R', Undoes: 'u', Status: 'Gone' } } },
      /CompensationLog.ChargePayment.Status is "Gone"/,
    ],
    ['an unknown RunningStep', { RunningStep: 'Knit' }, /RunningStep is 'Knit', not a step/],
  ])('refuses a stored record with %s, naming it', (_case, change, message) => {
    const item = { ...JSON.parse(JSON.stringify(stateRecordToItem(record))), ...change };
    expect(() => stateRecordFromItem(item)).toThrow(message);
  });
});

describe('state store transitions (the SDK side of STATE_TRANSITIONS)', () => {
  const claim = {
    instanceId: 'order-1--attempt-1',
    seenAttempt: 0,
    attempt: 1,
    claimableUntil: 1_000,
    plan: { ReserveInventory: 10, ChargePayment: 20, ScheduleShipping: 30 },
    completeBy: 10,
    now: '2030-01-01T00:00:00.000Z',
  };

  it('sends the rendered expressions of the table, with the constants and the bound values', () => {
    const rendered = renderTransition('claim');
    expect(transitionUpdate('claim', 'order-1', claim)).toEqual({
      Key: { OrderID: 'order-1' },
      UpdateExpression: rendered.updateExpression,
      ConditionExpression: rendered.conditionExpression,
      ExpressionAttributeNames: rendered.names,
      ExpressionAttributeValues: {
        ':pending': 'Pending',
        ':processing': 'Processing',
        ':zero': 0,
        ':instanceId': claim.instanceId,
        ':seenAttempt': 0,
        ':attempt': 1,
        ':claimableUntil': 1_000,
        ':plan': claim.plan,
        ':completeBy': 10,
        ':now': claim.now,
        // The claim creates the alert outbox when absent (if_not_exists(#alertOutbox, :emptyMap)).
        ':emptyMap': {},
      },
    });
  });

  it('names the alert entry of an alert-raising transition by its alertId (SDK side of THIS_ALERT)', () => {
    const update = transitionUpdate('failExpiredCompensation', 'order-1', {
      seenLock: 'order-1--attempt-2',
      seenCompleteBy: 5,
      seenCompensationFailureCount: 2,
      compensationFailureCount: 3,
      lastError: { Source: 'supervisor', Error: 'CompensationThresholdReached', Cause: 'c', At: 'a' },
      now: '2030-01-01T00:00:00.000Z',
      alertId: 'order-1:CompensationFailed:2',
      attempt: 2,
      correlationId: 'run-1',
    });
    expect(update.UpdateExpression).toContain('#alertOutbox.#alertId = :alertEntry');
    expect(update.ExpressionAttributeNames).toMatchObject({
      '#alertOutbox': 'AlertOutbox',
      '#alertId': 'order-1:CompensationFailed:2',
    });
    expect(update.ExpressionAttributeValues?.[':alertEntry']).toEqual({
      AlertId: 'order-1:CompensationFailed:2',
      Type: 'CompensationFailed',
      Reason: 'CompensationThresholdReached',
      At: '2030-01-01T00:00:00.000Z',
      Attempt: 2,
      CorrelationId: 'run-1',
      LastError: { Source: 'supervisor', Error: 'CompensationThresholdReached', Cause: 'c', At: 'a' },
      InstanceId: 'order-1--attempt-2',
      CompensationFailureCount: 3,
    });
  });

  it('renders step transitions for the step it is given (same data as the scheduler)', () => {
    const update = transitionUpdate(
      'markStepRunning',
      'order-1',
      { instanceId: 'i', runningStep: 'ChargePayment', completeBy: 5, now: 'T' },
      { step: 'ChargePayment' },
    );
    expect(update.UpdateExpression).toBe(
      renderTransition('markStepRunning', { step: 'ChargePayment' }).updateExpression,
    );
    expect(update.ExpressionAttributeNames).toMatchObject({ '#step': 'ChargePayment' });
  });

  it('composes a map value of the table as a plain object the document client marshals', () => {
    const update = transitionUpdate(
      'markCompensatingUncertain',
      'order-1',
      {
        instanceId: 'i',
        seq: 2,
        compensation: 'RefundPayment',
        undoes: 'order-1:ChargePayment',
        completeBy: 9,
        now: 'T',
      },
      { step: 'ChargePayment' },
    );
    expect(update.ExpressionAttributeValues?.[':uncertainEntry']).toEqual({
      Seq: 2,
      Compensation: 'RefundPayment',
      Undoes: 'order-1:ChargePayment',
      Uncertain: true,
      Status: 'Compensating',
      RecordedAt: 'T',
      CompensatingAt: 'T',
    });
  });

  it('fails naming a value that is not of the declared type (never sends NaN or an array)', () => {
    expect(() => transitionUpdate('claim', 'order-1', { ...claim, completeBy: Number.NaN })).toThrow(
      "State transition 'claim': parameter 'completeBy' must be of type N, got an unknown type",
    );
    expect(() =>
      transitionUpdate('claim', 'order-1', { ...claim, plan: [] as unknown as typeof claim.plan }),
    ).toThrow("parameter 'plan' must be of type M");
  });
});
