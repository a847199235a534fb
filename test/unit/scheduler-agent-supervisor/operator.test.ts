import {
  addSetClause,
  DynamoOperatorStore,
  decodeCursor,
  encodeCursor,
  InvalidCursorError,
} from '../../../lambdas/scheduler-agent-supervisor/adapters/operator-store';
import {
  type Condition,
  MAX_OPERATOR_BODY_BYTES,
  notAllowedMessage,
  OPERATOR_HISTORY_MAX_PAGES,
  OPERATOR_HISTORY_PAGE_SIZE,
  OPERATOR_MAX_ATTEMPTS_WITH_RUNS,
  OperatorAction,
  type OperatorActionRequest,
  operatorActionAvailability,
  operatorTransitionFor,
  ProcessState,
  STATE_TRANSITIONS,
  type StartOrderMessage,
  StateAttr,
  StepRunOutcome,
  StepRunsRead,
  statesAllowing,
} from '../../../lambdas/scheduler-agent-supervisor/contracts';
import {
  type AdmissionSlot,
  admissionSlotOrder,
  retryAfterSeconds,
} from '../../../lambdas/scheduler-agent-supervisor/domain/admission';
import { archivedAlertFrom } from '../../../lambdas/scheduler-agent-supervisor/domain/alert-archive';
import {
  type InspectDependencies,
  inspectOrder,
  type OperatorActionDependencies,
  parseOperatorActionBody,
  parseOperatorListQuery,
  performOperatorAction,
} from '../../../lambdas/scheduler-agent-supervisor/domain/operator';
import type {
  DrainObservation,
  EventLog,
  OperatorActionStore,
  OperatorActionWrite,
  OperatorRecordSummary,
  OperatorRecordView,
  SlotTakingResult,
  TransitionResult,
} from '../../../lambdas/scheduler-agent-supervisor/domain/ports';
import { dueShardFor } from '../../../lambdas/scheduler-agent-supervisor/domain/shard';

const NOW = 1_900_000_000_000;
const SEEN_AT = '2030-03-17T17:46:00.000Z';
const OPERATOR = 'arn:aws:iam::000000000000:user/alice';

describe('which states allow which operator action', () => {
  const table = Object.fromEntries(
    Object.values(ProcessState).map((state) => [
      state,
      {
        retry: operatorTransitionFor(OperatorAction.Retry, state) ?? null,
        cancel: operatorTransitionFor(OperatorAction.Cancel, state) ?? null,
      },
    ]),
  );

  it('retries Error (a new attempt) and CompensationFailed (the rollback again); cancels Pending, Error and Processed', () => {
    expect(table).toEqual({
      Pending: { retry: null, cancel: 'operatorCancel' },
      Processing: { retry: null, cancel: null },
      Processed: { retry: null, cancel: 'operatorCancel' },
      Error: { retry: 'operatorRetry', cancel: 'operatorCancel' },
      CompensationInProgress: { retry: null, cancel: null },
      Compensated: { retry: null, cancel: null },
      CompensationFailed: { retry: 'operatorRetryCompensation', cancel: null },
    });
    expect(statesAllowing(OperatorAction.Cancel)).toEqual(['Pending', 'Processed', 'Error']);
  });

  it("agrees with the transitions' own guards: each one admits exactly the states that take it, unlocked", () => {
    // The rule lives beside STATE_TRANSITIONS (the page cannot import the table); this keeps the two as one.
    const statesOf = (condition: Condition<string>): string[] =>
      'anyOf' in condition
        ? condition.anyOf.flatMap(statesOf)
        : condition.path.length === 1 &&
            condition.path[0] === StateAttr.ProcessState &&
            'equals' in condition &&
            'constant' in condition.equals
          ? [String(condition.equals.constant)]
          : [];
    for (const name of ['operatorRetry', 'operatorRetryCompensation', 'operatorCancel'] as const) {
      const transition = STATE_TRANSITIONS[name];
      const taking = Object.values(ProcessState).filter((state) =>
        Object.values(OperatorAction).some((action) => operatorTransitionFor(action, state) === name),
      );
      expect(transition.condition.flatMap(statesOf).sort()).toEqual([...taking].sort());
      expect(transition.fence).toEqual({ lockedBy: 'absent' });
    }
  });

  it('names the states that allow the action, and tells to wait for a running attempt', () => {
    expect(notAllowedMessage(OperatorAction.Cancel, ProcessState.Processing)).toBe(
      'Cannot cancel an order in state Processing (an attempt is running: wait until it settles, then look again); cancel applies to Pending, Processed, Error',
    );
    expect(notAllowedMessage(OperatorAction.Retry, ProcessState.Compensated)).toBe(
      'Cannot retry an order in state Compensated; retry applies to Error, CompensationFailed',
    );
  });
});

/**
 * An in-memory store port: the record as summarised, and what each write finds (`slot` is the
 * counter a slot-taking retry tries; undefined for a plain apply). Every write is recorded, with
 * the counter it tried.
 */
class MemoryStore implements OperatorActionStore {
  readonly writes: OperatorActionWrite[] = [];
  readonly slotsTried: string[] = [];
  constructor(
    public record: OperatorRecordSummary | undefined,
    private readonly onWrite: (write: OperatorActionWrite, slot?: AdmissionSlot) => SlotTakingResult = () =>
      'applied',
  ) {}
  async summary(): Promise<OperatorRecordSummary | undefined> {
    return this.record;
  }
  async apply(write: OperatorActionWrite): Promise<TransitionResult> {
    this.writes.push(write);
    const result = this.onWrite(write);
    if (result === 'shard-full') throw new Error('a plain apply cannot find a counter full');
    return result;
  }
  async applyTakingSlot(write: OperatorActionWrite, slot: AdmissionSlot): Promise<SlotTakingResult> {
    this.writes.push(write);
    this.slotsTried.push(slot.key);
    return this.onWrite(write, slot);
  }
}

const silentLog: EventLog = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };

const ADMISSION = { limit: 8, shards: 4 };

function deps(
  store: OperatorActionStore,
  sent: StartOrderMessage[],
  failSend = false,
  drain?: DrainObservation,
): OperatorActionDependencies {
  return {
    store,
    startQueue: {
      send: async (message) => {
        if (failSend) throw new Error('queue unavailable');
        sent.push(message);
      },
    },
    clock: { now: () => NOW },
    timings: { startGraceSeconds: 60 },
    dueShardCount: 4,
    admission: ADMISSION,
    drain: { read: async () => drain },
    liveWorkflowVersions: [1],
    log: silentLog,
  };
}

const summary = (
  processState: ProcessState,
  extra: Partial<OperatorRecordSummary> = {},
): OperatorRecordSummary => ({
  orderId: 'order-1',
  processState,
  updatedAt: SEEN_AT,
  schemaVersion: 3,
  workflowVersion: 1,
  failureCount: 3,
  compensationFailureCount: 2,
  ...extra,
});

const request = (expectedState: ProcessState, reason = 'downstream fixed'): OperatorActionRequest => ({
  reason,
  expectedState,
  expectedUpdatedAt: SEEN_AT,
});

const act = (action: OperatorAction, expectedState: ProcessState, d: OperatorActionDependencies) =>
  performOperatorAction(
    { orderId: 'order-1', action, request: request(expectedState), by: OPERATOR, correlationId: 'corr-1' },
    d,
  );

describe("the rule the console shows (operatorActionAvailability) is the route's", () => {
  const cases = Object.values(OperatorAction).flatMap((action) =>
    Object.values(ProcessState).flatMap((state) =>
      [undefined, 'order-1--attempt-2'].map((lockedBy) => ({ action, state, lockedBy })),
    ),
  );

  it.each(cases)(
    '$action on a $state order (locked by $lockedBy): enabled exactly when the route applies it',
    async ({ action, state, lockedBy }) => {
      const availability = operatorActionAvailability(action, {
        processState: state,
        ...(lockedBy !== undefined && { lockedBy }),
      });
      const store = new MemoryStore(summary(state, lockedBy === undefined ? {} : { lockedBy }));
      const outcome = await act(action, state, deps(store, []));
      expect(outcome.kind).toBe(availability.allowed ? 'applied' : 'refused');
      if (availability.allowed) expect(store.writes[0]?.transition).toBe(availability.transition);
      else expect(store.writes).toEqual([]);
    },
  );

  it("says why in words: the states that allow the action, this order's state, or the attempt that holds it", () => {
    expect(
      operatorActionAvailability(OperatorAction.Retry, { processState: ProcessState.Processing }),
    ).toEqual({
      allowed: false,
      reason:
        'Retry applies to Error, CompensationFailed; this order is Processing (an attempt is running: wait until it settles, then look again)',
    });
    expect(
      operatorActionAvailability(OperatorAction.Cancel, { processState: ProcessState.Compensated }),
    ).toEqual({
      allowed: false,
      reason: 'Cancel applies to Pending, Processed, Error; this order is Compensated',
    });
    expect(
      operatorActionAvailability(OperatorAction.Cancel, {
        processState: ProcessState.Error,
        lockedBy: 'order-1--attempt-3',
      }),
    ).toEqual({
      allowed: false,
      reason: 'Cancel waits: attempt order-1--attempt-3 holds this order; look again once it settles',
    });
    expect(
      operatorActionAvailability(OperatorAction.Cancel, { processState: ProcessState.Processed }),
    ).toEqual({
      allowed: true,
      transition: 'operatorCancel',
    });
  });
});

describe('performOperatorAction', () => {
  it('retries an Error order: Pending, failures reset, back in the index with a claim window, logged, start message sent', async () => {
    const store = new MemoryStore(summary(ProcessState.Error));
    const sent: StartOrderMessage[] = [];
    const outcome = await act(OperatorAction.Retry, ProcessState.Error, deps(store, sent));
    expect(outcome).toEqual({
      kind: 'applied',
      body: {
        orderId: 'order-1',
        action: 'retry',
        processState: 'Pending',
        updatedAt: '2030-03-17T17:46:40.000Z',
      },
      entry: {
        action: 'retry',
        by: OPERATOR,
        reason: 'downstream fixed',
        at: '2030-03-17T17:46:40.000Z',
        seenState: 'Error',
        seenUpdatedAt: SEEN_AT,
        newState: 'Pending',
        resetFailureCount: 3,
      },
      startQueued: true,
      admission: { shard: admissionSlotOrder('order-1', 8, 4)[0]?.key, slot: 'taken' },
    });
    expect(store.writes).toEqual([
      expect.objectContaining({
        transition: 'operatorRetry',
        seenState: 'Error',
        seenUpdatedAt: SEEN_AT,
        completeBy: NOW + 60_000,
        dueShard: dueShardFor('order-1', 4),
        at: NOW,
      }),
    ]);
    expect(sent).toEqual([{ orderId: 'order-1', reason: 'operator-retry', correlationId: 'corr-1' }]);
  });

  it('retries a CompensationFailed order as a compensation, resetting the compensation failures', async () => {
    const store = new MemoryStore(summary(ProcessState.CompensationFailed));
    const sent: StartOrderMessage[] = [];
    const outcome = await act(OperatorAction.Retry, ProcessState.CompensationFailed, deps(store, sent));
    expect(outcome).toMatchObject({
      kind: 'applied',
      body: { processState: 'CompensationInProgress' },
      entry: { resetFailureCount: 2, newState: 'CompensationInProgress' },
    });
    expect(store.writes[0]?.transition).toBe('operatorRetryCompensation');
    expect(sent[0]?.reason).toBe('operator-retry');
  });

  it.each([ProcessState.Pending, ProcessState.Error, ProcessState.Processed])(
    'cancels a %s order into CompensationInProgress with an operator-cancel start message',
    async (state) => {
      const store = new MemoryStore(summary(state));
      const sent: StartOrderMessage[] = [];
      const outcome = await act(OperatorAction.Cancel, state, deps(store, sent));
      expect(outcome).toMatchObject({ kind: 'applied', body: { processState: 'CompensationInProgress' } });
      expect(outcome.kind === 'applied' && outcome.entry).not.toHaveProperty('resetFailureCount');
      expect(store.writes[0]).toMatchObject({ transition: 'operatorCancel', seenState: state });
      expect(sent[0]?.reason).toBe('operator-cancel');
    },
  );

  it.each([
    [OperatorAction.Cancel, ProcessState.Processing],
    [OperatorAction.Cancel, ProcessState.CompensationInProgress],
    [OperatorAction.Cancel, ProcessState.Compensated],
    [OperatorAction.Retry, ProcessState.Processed],
    [OperatorAction.Retry, ProcessState.Pending],
  ])('refuses to %s an order in %s (NotAllowed), writing nothing', async (action, state) => {
    const store = new MemoryStore(summary(state));
    const sent: StartOrderMessage[] = [];
    const outcome = await act(action, state, deps(store, sent));
    expect(outcome).toEqual({
      kind: 'refused',
      body: {
        message: notAllowedMessage(action, state),
        refusal: 'NotAllowed',
        currentState: state,
        currentUpdatedAt: SEEN_AT,
      },
    });
    expect(store.writes).toEqual([]);
    expect(sent).toEqual([]);
  });

  it('refuses with StateChanged when the record moved on since the operator looked, and names both versions', async () => {
    const store = new MemoryStore(summary(ProcessState.Error, { updatedAt: '2030-03-17T17:47:00.000Z' }));
    const outcome = await act(OperatorAction.Retry, ProcessState.Error, deps(store, []));
    expect(outcome).toEqual({
      kind: 'refused',
      body: {
        message:
          'The order changed since it was read (seen Error at 2030-03-17T17:46:00.000Z, now Error at 2030-03-17T17:47:00.000Z); read it again and decide again',
        refusal: 'StateChanged',
        currentState: 'Error',
        currentUpdatedAt: '2030-03-17T17:47:00.000Z',
      },
    });
    expect(store.writes).toEqual([]);
  });

  it('answers NotAllowed, not StateChanged, when the record moved on to a state that does not allow the action', async () => {
    const store = new MemoryStore(summary(ProcessState.Processing, { updatedAt: 'later' }));
    const outcome = await act(OperatorAction.Cancel, ProcessState.Error, deps(store, []));
    expect(outcome).toMatchObject({
      kind: 'refused',
      body: { refusal: 'NotAllowed', currentState: 'Processing' },
    });
  });

  it('reads the record again when the condition is lost between the read and the write', async () => {
    const store = new MemoryStore(summary(ProcessState.Pending), () => {
      store.record = summary(ProcessState.Processing, {
        updatedAt: 'claimed',
        lockedBy: 'order-1--attempt-1',
      });
      return 'lost';
    });
    const sent: StartOrderMessage[] = [];
    const outcome = await act(OperatorAction.Cancel, ProcessState.Pending, deps(store, sent));
    expect(outcome).toMatchObject({
      kind: 'refused',
      body: { refusal: 'NotAllowed', currentState: 'Processing', currentUpdatedAt: 'claimed' },
    });
    expect(sent).toEqual([]);
  });

  it('answers not-found for an unknown order', async () => {
    expect(await act(OperatorAction.Retry, ProcessState.Error, deps(new MemoryStore(undefined), []))).toEqual(
      {
        kind: 'not-found',
      },
    );
  });

  it.each([
    [
      'a retired or future workflow version',
      { workflowVersion: 99 },
      'WorkflowVersion 99; live workflow versions: 1',
    ],
    ['an unsupported schema version', { schemaVersion: 1 }, 'SchemaVersion 1; supported: 2, 3'],
  ])(
    'refuses a record of %s: nothing written, no start message, the reason named',
    async (_case, versions, reason) => {
      for (const action of [OperatorAction.Retry, OperatorAction.Cancel]) {
        const store = new MemoryStore(summary(ProcessState.Error, versions));
        const sent: StartOrderMessage[] = [];
        const outcome = await act(action, ProcessState.Error, deps(store, sent));
        expect(outcome).toEqual({ kind: 'unsupported-version', message: expect.stringContaining(reason) });
        expect(store.writes).toEqual([]);
        expect(sent).toEqual([]);
      }
    },
  );

  it('still succeeds when the start message cannot be sent (the supervisor re-queues it)', async () => {
    const outcome = await act(
      OperatorAction.Retry,
      ProcessState.Error,
      deps(new MemoryStore(summary(ProcessState.Error)), [], true),
    );
    expect(outcome).toMatchObject({ kind: 'applied', startQueued: false });
  });
});

describe('admission of operator retries (a retry is new work)', () => {
  const order = admissionSlotOrder('order-1', ADMISSION.limit, ADMISSION.shards).map((slot) => slot.key);

  it.each([
    [ProcessState.Error, 'operatorRetry'],
    [ProcessState.CompensationFailed, 'operatorRetryCompensation'],
  ])(
    'a retry of a %s record holding no slot takes one, on its own counter first',
    async (state, transition) => {
      const store = new MemoryStore(summary(state));
      const outcome = await act(OperatorAction.Retry, state, deps(store, []));
      expect(outcome).toMatchObject({ kind: 'applied', admission: { shard: order[0], slot: 'taken' } });
      expect(store.slotsTried).toEqual([order[0]]);
      expect(store.writes).toEqual([expect.objectContaining({ transition })]);
      expect(store.writes[0]).not.toHaveProperty('keepsSlot');
    },
  );

  it('walks on to the next counters while they are full, in admissionSlotOrder', async () => {
    const store = new MemoryStore(summary(ProcessState.Error), (_, slot) =>
      slot?.key === order[2] ? 'applied' : 'shard-full',
    );
    const sent: StartOrderMessage[] = [];
    const outcome = await act(OperatorAction.Retry, ProcessState.Error, deps(store, sent));
    expect(outcome).toMatchObject({ kind: 'applied', admission: { shard: order[2], slot: 'taken' } });
    expect(store.slotsTried).toEqual(order.slice(0, 3));
    expect(sent).toHaveLength(1);
  });

  it('every counter full: rejected with the Retry-After of the drain, nothing applied, no start message', async () => {
    const drain: DrainObservation = { intervalMillisEwma: 4_200, lastReleaseAt: NOW - 1_000, version: 7 };
    const store = new MemoryStore(summary(ProcessState.Error), () => 'shard-full');
    const sent: StartOrderMessage[] = [];
    const outcome = await act(OperatorAction.Retry, ProcessState.Error, deps(store, sent, false, drain));
    expect(outcome).toEqual({
      kind: 'rejected',
      retryAfterSeconds: retryAfterSeconds(drain, NOW),
      message: expect.stringContaining('every admission slot is taken'),
    });
    expect(retryAfterSeconds(drain, NOW)).toBe(5);
    expect(store.slotsTried).toEqual(order);
    expect(sent).toEqual([]);
  });

  it('a record that moved on is refused as before, even with a counter full: no other counter is tried', async () => {
    const store = new MemoryStore(summary(ProcessState.Error), () => {
      store.record = summary(ProcessState.Pending, { updatedAt: 'retried' });
      return 'lost';
    });
    const outcome = await act(OperatorAction.Retry, ProcessState.Error, deps(store, []));
    expect(outcome).toMatchObject({
      kind: 'refused',
      body: { refusal: 'NotAllowed', currentState: 'Pending' },
    });
    expect(store.slotsTried).toEqual([order[0]]);
  });

  it('a record still holding its slot (release not run yet) keeps it: a plain write conditional on it, no slot taken', async () => {
    const store = new MemoryStore(summary(ProcessState.Error, { admissionShard: 'shard#3' }));
    const outcome = await act(OperatorAction.Retry, ProcessState.Error, deps(store, []));
    expect(outcome).toMatchObject({ kind: 'applied', admission: { shard: 'shard#3', slot: 'kept' } });
    expect(store.slotsTried).toEqual([]);
    expect(store.writes).toEqual([expect.objectContaining({ keepsSlot: 'shard#3' })]);
  });

  it('the slot released between the read and the keeping write: reads again and takes a slot', async () => {
    const store = new MemoryStore(summary(ProcessState.Error, { admissionShard: 'shard#3' }), (write) => {
      if (write.keepsSlot === undefined) return 'applied';
      store.record = summary(ProcessState.Error); // the release removed AdmissionShard, nothing else
      return 'lost';
    });
    const outcome = await act(OperatorAction.Retry, ProcessState.Error, deps(store, []));
    expect(outcome).toMatchObject({ kind: 'applied', admission: { shard: order[0], slot: 'taken' } });
    expect(store.writes.map((write) => write.keepsSlot ?? 'take')).toEqual(['shard#3', 'take']);
  });

  it.each([
    ['holding no slot', summary(ProcessState.Error)],
    ['still holding its slot', summary(ProcessState.Processed, { admissionShard: 'shard#1' })],
  ])(
    'a cancel of a record %s takes no slot and keeps none (compensation is not new work)',
    async (_, record) => {
      const store = new MemoryStore(record);
      const outcome = await act(OperatorAction.Cancel, record.processState, deps(store, []));
      expect(outcome).toMatchObject({ kind: 'applied', body: { processState: 'CompensationInProgress' } });
      expect(outcome).not.toHaveProperty('admission');
      expect(store.slotsTried).toEqual([]);
      expect(store.writes).toEqual([expect.not.objectContaining({ keepsSlot: expect.anything() })]);
    },
  );
});

describe('parseOperatorActionBody', () => {
  it('accepts a reason and what the operator saw', () => {
    expect(parseOperatorActionBody(JSON.stringify(request(ProcessState.Error)), false)).toEqual({
      ok: true,
      request: request(ProcessState.Error),
    });
  });

  it('names each bad field', () => {
    const parsed = parseOperatorActionBody(
      JSON.stringify({ reason: 'x', expectedState: 'Lost', extra: 1 }),
      false,
    );
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.errors.map((error) => error.path).sort()).toEqual([
      'expectedState',
      'expectedUpdatedAt',
      'extra',
      'reason',
    ]);
  });

  it('refuses an oversized body before parsing it, and a missing one', () => {
    const big = JSON.stringify({
      ...request(ProcessState.Error),
      reason: 'x'.repeat(MAX_OPERATOR_BODY_BYTES),
    });
    expect(parseOperatorActionBody(big, false)).toMatchObject({
      ok: false,
      message: `Request body is larger than ${MAX_OPERATOR_BODY_BYTES} bytes`,
    });
    expect(parseOperatorActionBody(null, false)).toMatchObject({
      ok: false,
      message: 'Request body is required',
    });
  });
});

describe('parseOperatorListQuery', () => {
  it('defaults the limit to 25', () => {
    expect(parseOperatorListQuery({ state: 'Error' })).toEqual({
      ok: true,
      query: { state: 'Error', limit: 25 },
    });
  });

  it('names a missing or unknown state, a limit out of 1..100 and unknown parameters', () => {
    expect(parseOperatorListQuery({ limit: '0', sort: 'asc' })).toEqual({
      ok: false,
      message: 'Query is not valid',
      errors: [
        {
          path: 'state',
          message:
            'is required: one of Pending, Processing, Processed, Error, CompensationInProgress, Compensated, CompensationFailed',
        },
        { path: 'limit', message: 'must be an integer from 1 to 100' },
        { path: 'sort', message: 'is not an allowed query parameter' },
      ],
    });
    for (const limit of ['101', '2.5', 'ten', '-1']) {
      expect(parseOperatorListQuery({ state: 'Error', limit }).ok).toBe(false);
    }
    expect(parseOperatorListQuery({ state: 'Errors' })).toMatchObject({
      ok: false,
      errors: [{ path: 'state', message: expect.stringMatching(/^must be one of Pending/) }],
    });
    expect(parseOperatorListQuery({ state: 'Error', limit: '100' })).toMatchObject({ ok: true });
  });
});

describe('the retry update that takes a slot', () => {
  it('adds a clause to the SET action, wherever it is, or adds a SET action', () => {
    expect(addSetClause('SET #a = :a, #b = :b REMOVE #c', '#s = :s')).toBe(
      'SET #s = :s, #a = :a, #b = :b REMOVE #c',
    );
    expect(addSetClause('REMOVE #c SET #a = :a', '#s = :s')).toBe('REMOVE #c SET #s = :s, #a = :a');
    expect(addSetClause('REMOVE #c', '#s = :s')).toBe('SET #s = :s REMOVE #c');
  });

  it('a retry keeping its slot is conditional on the record still holding that very slot', () => {
    const store = new DynamoOperatorStore({} as never, 'states');
    const write = {
      orderId: 'order-1',
      transition: 'operatorRetry' as const,
      seenState: ProcessState.Error,
      seenUpdatedAt: SEEN_AT,
      completeBy: NOW,
      dueShard: '0',
      entry: {
        action: OperatorAction.Retry,
        by: OPERATOR,
        reason: 'r',
        at: SEEN_AT,
        seenState: ProcessState.Error,
        seenUpdatedAt: SEEN_AT,
        newState: ProcessState.Pending,
      },
      at: NOW,
    };
    const plain = store.actionUpdate(write);
    const keeping = store.actionUpdate({ ...write, keepsSlot: 'shard#2' });
    expect(keeping.ConditionExpression).toBe(`(${plain.ConditionExpression}) AND #keptShard = :keptShard`);
    expect(keeping.ExpressionAttributeNames).toMatchObject({ '#keptShard': 'AdmissionShard' });
    expect(keeping.ExpressionAttributeValues).toMatchObject({ ':keptShard': 'shard#2' });
    expect(keeping.UpdateExpression).toBe(plain.UpdateExpression);
  });

  it('refuses to take a slot for a cancel, or without an admission table', async () => {
    const write = { transition: 'operatorCancel' } as never;
    const slot = { key: 'shard#0', cap: 1 };
    await expect(new DynamoOperatorStore({} as never, 'states').applyTakingSlot(write, slot)).rejects.toThrow(
      'without an admission table',
    );
    await expect(
      new DynamoOperatorStore({} as never, 'states', { admissionTable: 'admission' }).applyTakingSlot(
        write,
        slot,
      ),
    ).rejects.toThrow('operatorCancel takes no admission slot');
  });
});

describe('list cursors', () => {
  const key = { OrderID: 'order-9', ProcessState: 'Error', UpdatedAt: SEEN_AT };

  it('round-trips the page key of the state it was made for', () => {
    expect(decodeCursor(encodeCursor(key), ProcessState.Error)).toEqual(key);
  });

  it.each([
    ['not base64url', 'a+b/c='],
    ['not JSON', Buffer.from('{oops').toString('base64url')],
    ['an array', encodeCursor([] as unknown as Record<string, unknown>)],
    ['a key with other attributes', encodeCursor({ ...key, Extra: 'x' })],
    ['a key with a number', encodeCursor({ ...key, UpdatedAt: 5 })],
  ])('refuses a cursor that is %s', (_, cursor) => {
    expect(() => decodeCursor(cursor, ProcessState.Error)).toThrow(InvalidCursorError);
  });

  it('refuses the cursor of another state', () => {
    expect(() => decodeCursor(encodeCursor(key), ProcessState.Pending)).toThrow(
      'cursor belongs to another state than Pending; pass back the nextCursor of the previous page',
    );
  });
});

describe('inspectOrder', () => {
  const record = (attempt: number): OperatorRecordView => ({
    orderId: 'order-1',
    processState: ProcessState.Error,
    attempt,
    failureCount: 3,
    compensationFailureCount: 0,
    workflowVersion: 1,
    createdAt: SEEN_AT,
    updatedAt: SEEN_AT,
    steps: [],
    compensationLog: [],
    operatorLog: [],
  });
  const run = (attempt: string) => ({
    step: 'ChargePayment' as const,
    action: 'perform' as const,
    outcome: StepRunOutcome.TimedOut,
    startedAt: `S${attempt}`,
    endedAt: `E${attempt}`,
    error: 'States.Timeout',
  });
  const inspectDeps = (
    attempt: number,
    described: string[],
    historiesRead: string[] = [],
  ): InspectDependencies => ({
    records: { view: async () => record(attempt) },
    executions: {
      describe: async (name) => {
        described.push(name);
        return name.endsWith('-2') ? undefined : { status: 'FAILED', startDate: 'S', stopDate: 'E' };
      },
      stepRuns: async (name, _version, bounds) => {
        historiesRead.push(`${name} ${bounds.pageSize}x${bounds.maxPages}`);
        if (name.endsWith('-2')) return undefined;
        return { runs: [run(name.slice(-1))], complete: !name.endsWith('-3') };
      },
    },
    alerts: { alertsOf: async () => [{ at: SEEN_AT, type: 'OrderFailed', eventId: 'e1', detail: {} }] },
  });

  it('describes attempts 1..Attempt by their execution names, and shows a missing one as NotFound', async () => {
    const described: string[] = [];
    const detail = await inspectOrder('order-1', inspectDeps(3, described));
    const described3 = { status: 'FAILED', startDate: 'S', stopDate: 'E' };
    expect(detail?.attempts).toEqual([
      {
        attempt: 1,
        executionName: 'order-1--attempt-1',
        ...described3,
        stepRuns: [run('1')],
        stepRunsRead: StepRunsRead.All,
      },
      {
        attempt: 2,
        executionName: 'order-1--attempt-2',
        status: 'NotFound',
        stepRuns: [],
        stepRunsRead: StepRunsRead.NotRead,
      },
      {
        attempt: 3,
        executionName: 'order-1--attempt-3',
        ...described3,
        stepRuns: [run('3')],
        stepRunsRead: StepRunsRead.Truncated,
      },
    ]);
    expect(detail?.alerts).toHaveLength(1);
  });

  it('reads the step runs of the most recent attempts only, each history bounded in pages, and says which were not read', async () => {
    const historiesRead: string[] = [];
    const detail = await inspectOrder('order-1', inspectDeps(8, [], historiesRead));
    const recent = Array.from({ length: OPERATOR_MAX_ATTEMPTS_WITH_RUNS }, (_, index) => 8 - index).reverse();
    expect(historiesRead.sort()).toEqual(
      recent.map(
        (attempt) =>
          `order-1--attempt-${attempt} ${OPERATOR_HISTORY_PAGE_SIZE}x${OPERATOR_HISTORY_MAX_PAGES}`,
      ),
    );
    // Attempts 1-3 are older than the 5 read: NotRead, whatever their histories hold.
    const firstRead = 8 - OPERATOR_MAX_ATTEMPTS_WITH_RUNS + 1;
    expect(detail?.attempts.map((attempt) => [attempt.attempt, attempt.stepRunsRead])).toEqual(
      Array.from({ length: 8 }, (_, index) => [
        index + 1,
        index + 1 < firstRead ? StepRunsRead.NotRead : StepRunsRead.All,
      ]),
    );
    expect(detail?.attempts[0]?.stepRuns).toEqual([]);
  });

  it('describes only the 20 most recent attempts, and none before the first claim', async () => {
    const described: string[] = [];
    expect(
      (await inspectOrder('order-1', inspectDeps(25, described)))?.attempts.map((a) => a.attempt),
    ).toEqual(Array.from({ length: 20 }, (_, index) => index + 6));
    expect((await inspectOrder('order-1', inspectDeps(0, [])))?.attempts).toEqual([]);
  });

  it('answers undefined for an unknown order', async () => {
    const deps = { ...inspectDeps(1, []), records: { view: async () => undefined } };
    expect(await inspectOrder('missing', deps)).toBeUndefined();
  });
});

describe('archivedAlertFrom', () => {
  const event = {
    id: 'event-1',
    source: 'order-processing',
    'detail-type': 'OrderFailed',
    time: '2030-03-17T17:46:00Z',
    detail: { orderId: 'order-1', reason: 'FailureThresholdReached' },
  };

  it('archives one of the wing alerts under its order', () => {
    expect(archivedAlertFrom(event)).toEqual({
      ok: true,
      alert: {
        orderId: 'order-1',
        type: 'OrderFailed',
        at: '2030-03-17T17:46:00Z',
        eventId: 'event-1',
        detail: event.detail,
      },
    });
  });

  it.each([
    ['another source', { ...event, source: 'elsewhere' }, 'source "elsewhere" is not order-processing'],
    ['an unknown type', { ...event, 'detail-type': 'Hello' }, 'detail-type "Hello" is not an alert type'],
    ['no order id', { ...event, detail: {} }, 'detail.orderId undefined is not an order id'],
  ])('drops an event with %s, saying why', (_, bad, problem) => {
    expect(archivedAlertFrom(bad)).toEqual({ ok: false, problem });
  });
});
