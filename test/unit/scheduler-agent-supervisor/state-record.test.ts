import {
  CompensationStatus,
  DEFAULT_WORKFLOW_VERSION,
  ProcessState,
  STATE_SCHEMA_VERSION,
  StepStatus,
  workflowSteps,
} from '../../../lambdas/scheduler-agent-supervisor/contracts';
import { dueShardFor } from '../../../lambdas/scheduler-agent-supervisor/domain/shard';
import {
  buildInitialStateRecord,
  instanceIdFor,
  MAX_INSTANCE_ID_LENGTH,
  mayNeedCompensation,
  parseInstanceId,
  pendingCompleteBy,
  type StateRecord,
  toOrderStatusBody,
} from '../../../lambdas/scheduler-agent-supervisor/domain/state-record';

/** The steps of an order on the default workflow version (what these tests deploy). */
const V1_STEPS = workflowSteps(DEFAULT_WORKFLOW_VERSION);

const NOW = Date.parse('2030-01-02T03:04:05.000Z');

describe('buildInitialStateRecord', () => {
  const record = buildInitialStateRecord({
    workflowVersion: 1,
    orderId: 'order-1',
    orderFingerprint: 'f'.repeat(64),
    now: NOW,
    timings: { startGraceSeconds: 120 },
    dueShardCount: 8,
    retryBudget: 12,
  });

  it('is Pending, unlocked, with zero failures and attempts', () => {
    expect(record).toMatchObject({
      orderId: 'order-1',
      processState: ProcessState.Pending,
      failureCount: 0,
      attempt: 0,
      orderFingerprint: 'f'.repeat(64),
    });
    expect(record).not.toHaveProperty('lockedBy');
    expect(record).not.toHaveProperty('plan');
    expect(record).not.toHaveProperty('lastError');
  });

  it('starts with an empty compensation log (its entries are SET by path) and no compensation failures', () => {
    expect(record.compensationLog).toEqual({});
    expect(record.compensationFailureCount).toBe(0);
    expect(record).not.toHaveProperty('runningStep');
  });

  it('carries the retry budget it was created with and an empty CallsMade map (reservations ADD into it)', () => {
    expect(record.retryBudget).toBe(12);
    expect(record.callsMade).toEqual({});
  });

  it('must be claimed within the start grace window', () => {
    expect(record.completeBy).toBe(NOW + 120_000);
  });

  it('is in the supervisor index under the hashed shard', () => {
    expect(record.dueShard).toBe(dueShardFor('order-1', 8));
  });

  it('lists every step as NotStarted', () => {
    expect(record.steps).toEqual(
      Object.fromEntries(V1_STEPS.map((step) => [step.name, { status: StepStatus.NotStarted }])),
    );
  });

  it('carries the schema and workflow versions and timestamps', () => {
    expect(record).toMatchObject({
      schemaVersion: STATE_SCHEMA_VERSION,
      workflowVersion: 1,
      createdAt: '2030-01-02T03:04:05.000Z',
      updatedAt: '2030-01-02T03:04:05.000Z',
    });
  });
});

describe('pendingCompleteBy', () => {
  it.each([
    [0, 1, 1000],
    [NOW, 5, NOW + 5000],
    [NOW + 60_000, 120, NOW + 180_000],
  ])('earliest start %i + grace %is = %i', (earliest, grace, expected) => {
    expect(pendingCompleteBy(earliest, { startGraceSeconds: grace })).toBe(expected);
  });
});

describe('toOrderStatusBody', () => {
  const record: StateRecord = {
    orderId: 'order-9',
    processState: ProcessState.Processing,
    lockedBy: 'order-9--attempt-2',
    completeBy: NOW,
    dueShard: '3',
    failureCount: 1,
    attempt: 2,
    steps: {
      ReserveInventory: { status: StepStatus.Completed, result: { ConfirmationId: 'c-1' } },
      ChargePayment: { status: StepStatus.Running },
    },
    plan: { ReserveInventory: NOW, ChargePayment: NOW + 1, ScheduleShipping: NOW + 2 },
    compensationLog: {},
    compensationFailureCount: 0,
    orderFingerprint: 'abc',
    schemaVersion: 2,
    workflowVersion: 1,
    createdAt: 'c',
    updatedAt: '2030-01-02T03:04:05.000Z',
  };

  it('shows states and counters, every step in workflow order, missing steps as NotStarted', () => {
    expect(toOrderStatusBody(record)).toEqual({
      orderId: 'order-9',
      processState: ProcessState.Processing,
      failureCount: 1,
      attempt: 2,
      steps: [
        { name: 'ReserveInventory', status: StepStatus.Completed },
        { name: 'ChargePayment', status: StepStatus.Running },
        { name: 'ScheduleShipping', status: StepStatus.NotStarted },
      ],
      updatedAt: '2030-01-02T03:04:05.000Z',
    });
  });

  it('shows the true status of each step during and after a compensation', () => {
    const compensating: StateRecord = {
      ...record,
      processState: ProcessState.CompensationInProgress,
      steps: {
        ReserveInventory: { status: StepStatus.Compensated },
        ChargePayment: { status: StepStatus.Compensating },
        ScheduleShipping: { status: StepStatus.Failed },
      },
    };
    expect(toOrderStatusBody(compensating)).toMatchObject({
      processState: ProcessState.CompensationInProgress,
      steps: [
        { name: 'ReserveInventory', status: StepStatus.Compensated },
        { name: 'ChargePayment', status: StepStatus.Compensating },
        { name: 'ScheduleShipping', status: StepStatus.Failed },
      ],
    });
  });

  it('never exposes locks, plans, shards or fingerprints', () => {
    const body = JSON.stringify(toOrderStatusBody(record));
    for (const secret of ['attempt-2', 'abc', 'plan', 'dueShard', 'lockedBy']) {
      expect(body).not.toContain(secret);
    }
  });
});

describe('mayNeedCompensation', () => {
  const entry = (status: CompensationStatus) => ({
    seq: 1,
    compensation: 'ReleaseInventory',
    undoes: 'o:ReserveInventory',
    status,
  });
  it.each([
    [StepStatus.Completed, CompensationStatus.Recorded, true],
    [StepStatus.Compensating, CompensationStatus.Compensating, true],
    [StepStatus.Compensating, CompensationStatus.Failed, true],
    [StepStatus.Compensated, CompensationStatus.Compensated, false],
  ])('step %s with a %s log entry: %p', (status, logStatus, expected) => {
    expect(
      mayNeedCompensation(
        { steps: { ReserveInventory: { status } }, compensationLog: { ReserveInventory: entry(logStatus) } },
        'ReserveInventory',
      ),
    ).toBe(expected);
  });

  it.each([
    [StepStatus.TimedOut, true],
    [StepStatus.NotStarted, false],
    [StepStatus.Failed, false],
    [StepStatus.Running, false],
  ])(
    'step %s without a log entry: %p (only an uncertain step is undone just in case)',
    (status, expected) => {
      expect(
        mayNeedCompensation(
          { steps: { ReserveInventory: { status } }, compensationLog: {} },
          'ReserveInventory',
        ),
      ).toBe(expected);
    },
  );
});

describe('instance ids', () => {
  it.each([
    ['order-1', 1, 'order-1--attempt-1'],
    ['A_b', 12, 'A_b--attempt-12'],
    ['x--attempt-3', 4, 'x--attempt-3--attempt-4'],
  ])('builds and parses back %s attempt %i', (orderId, attempt, expected) => {
    const id = instanceIdFor(orderId, attempt);
    expect(id).toBe(expected);
    expect(parseInstanceId(id)).toEqual({ orderId, attempt });
  });

  it('round-trips for many ids and attempts (a valid execution name every time)', () => {
    for (let length = 1; length <= 64; length += 9) {
      for (const attempt of [1, 2, 9, 10, 99, 999_999]) {
        const orderId = 'o'.repeat(length);
        const id = instanceIdFor(orderId, attempt);
        expect(id.length).toBeLessThanOrEqual(MAX_INSTANCE_ID_LENGTH);
        expect(id).toMatch(/^[A-Za-z0-9_-]+$/);
        expect(parseInstanceId(id)).toEqual({ orderId, attempt });
      }
    }
  });

  it('refuses an id longer than an execution name may be', () => {
    expect(instanceIdFor('x'.repeat(64), 999_999)).toHaveLength(80);
    expect(() => instanceIdFor('x'.repeat(64), 1_000_000)).toThrow(/longer than 80/);
  });

  it.each([0, -1, 1.5])('refuses attempt %p', (attempt) => {
    expect(() => instanceIdFor('order-1', attempt)).toThrow(/positive integer/);
  });

  it('refuses an invalid order id', () => {
    expect(() => instanceIdFor('bad id', 1)).toThrow(/not a valid orderId/);
  });

  it.each([
    'order-1',
    'order-1--attempt-',
    'order-1--attempt-0',
    'order-1--attempt-01',
    '--attempt-1',
    'bad id--attempt-1',
  ])('does not parse %s', (id) => {
    expect(parseInstanceId(id)).toBeUndefined();
  });
});
