import { ProcessState } from '../../../lambdas/scheduler-agent-supervisor/contracts';
import { MissingOrderError } from '../../../lambdas/scheduler-agent-supervisor/domain/errors';
import type { StoredOrder } from '../../../lambdas/scheduler-agent-supervisor/domain/order';
import type {
  ClaimRequest,
  ClaimStore,
  OrdersReader,
  ReleaseRequest,
  StateRecordReader,
  TransitionResult,
  WorkflowExecution,
  WorkflowStarter,
} from '../../../lambdas/scheduler-agent-supervisor/domain/ports';
import {
  type ClaimTimings,
  MAX_EXECUTION_INPUT_BYTES,
  planAttempt,
  START_RETRY_POLICY,
  type StartDependencies,
  startOrder,
  workflowExecutionInput,
} from '../../../lambdas/scheduler-agent-supervisor/domain/starter';
import {
  buildInitialStateRecord,
  type StateRecord,
} from '../../../lambdas/scheduler-agent-supervisor/domain/state-record';
import { type BackoffPolicy, nextRetry } from '../../../lambdas/shared/backoff';

const NOW = 1_900_000_000_000;
const timings: ClaimTimings = {
  stepTimeoutSeconds: 120,
  stepDeadlineSlackSeconds: 30,
  startGraceSeconds: 60,
};
const policy: BackoffPolicy = {
  maxAttempts: 3,
  baseMillis: 200,
  capMillis: 300,
  budgetMillis: 2000,
};
const message = { orderId: 'order-1', reason: 'submitted', correlationId: 'corr-1' } as const;

describe('START_RETRY_POLICY', () => {
  it('keeps the default policy to a few tries within about two seconds of sleeping at most', () => {
    let worstCaseSleep = 0;
    for (let tries = 1; ; tries += 1) {
      const next = nextRetry(
        START_RETRY_POLICY,
        { attemptsMade: tries, now: worstCaseSleep, firstAttemptAt: 0 },
        () => 0.999_999,
      );
      if (next.kind === 'give-up') {
        expect(tries).toBe(START_RETRY_POLICY.maxAttempts);
        break;
      }
      worstCaseSleep += next.delayMillis;
    }
    expect(START_RETRY_POLICY.maxAttempts).toBeGreaterThanOrEqual(2);
    expect(worstCaseSleep).toBeLessThanOrEqual(START_RETRY_POLICY.budgetMillis ?? 0);
  });
});

/** In-memory state store with the store's conditions, so the use case's calls are checked for real. */
class InMemoryStates implements StateRecordReader, ClaimStore {
  readonly claims: ClaimRequest[] = [];
  readonly releases: ReleaseRequest[] = [];
  releaseFails: Error | undefined;
  beforeRelease: (() => void) | undefined;

  constructor(public record: StateRecord) {}

  async get(orderId: string): Promise<StateRecord | undefined> {
    return orderId === this.record.orderId ? this.record : undefined;
  }

  async claim(request: ClaimRequest): Promise<TransitionResult> {
    this.claims.push(request);
    const r = this.record;
    // A claim of the steps takes a Pending record; a compensation claim an unlocked CompensationInProgress one.
    const steps = request.kind === 'steps';
    if (
      r.processState !== (steps ? ProcessState.Pending : ProcessState.CompensationInProgress) ||
      r.lockedBy !== undefined ||
      r.attempt !== request.seenAttempt
    ) {
      return 'lost';
    }
    this.record = {
      ...r,
      processState: steps ? ProcessState.Processing : ProcessState.CompensationInProgress,
      lockedBy: request.instanceId,
      attempt: request.attempt,
      plan: request.plan,
      completeBy: request.completeBy,
      updatedAt: new Date(request.at).toISOString(),
    };
    return 'applied';
  }

  async release(request: ReleaseRequest): Promise<TransitionResult> {
    this.releases.push(request);
    this.beforeRelease?.();
    if (this.releaseFails) {
      throw this.releaseFails;
    }
    const r = this.record;
    if (
      r.processState !== ProcessState.Processing ||
      r.lockedBy !== request.instanceId ||
      r.attempt !== request.attempt ||
      r.updatedAt !== new Date(request.claimedAt).toISOString()
    ) {
      return 'lost';
    }
    const { lockedBy: _released, ...unlocked } = r;
    this.record = {
      ...unlocked,
      processState: ProcessState.Pending,
      attempt: request.restoredAttempt,
      completeBy: request.completeBy,
      updatedAt: new Date(request.at).toISOString(),
    };
    return 'applied';
  }
}

/** Answers each StartExecution with the next scripted reply; the last one repeats. */
/** The business database as the starter reads it; counts reads (a classic start must make none). */
class InMemoryOrders implements OrdersReader {
  reads = 0;
  constructor(private readonly orders: readonly StoredOrder[] = []) {}
  async get(orderId: string): Promise<StoredOrder | undefined> {
    this.reads += 1;
    return this.orders.find((order) => order.orderId === orderId);
  }
}

const ORDER_1: StoredOrder = {
  orderId: 'order-1',
  customerId: 'customer-1',
  items: [{ sku: 'BOOK', quantity: 2 }],
  totalCents: 1999,
  currency: 'EUR',
  fingerprint: 'fp',
  createdAt: '2026-01-01T00:00:00.000Z',
};

class ScriptedWorkflow implements WorkflowStarter {
  readonly starts: WorkflowExecution[] = [];
  constructor(
    private readonly replies: readonly ('started' | 'already-started' | Error)[],
    private readonly onCall: () => void = () => undefined,
  ) {}

  async start(execution: WorkflowExecution): Promise<'started' | 'already-started'> {
    this.starts.push(execution);
    this.onCall();
    const reply = this.replies[Math.min(this.starts.length, this.replies.length) - 1];
    if (reply === undefined) {
      throw new Error('no reply scripted');
    }
    if (reply instanceof Error) {
      throw reply;
    }
    return reply;
  }
}

const unavailable = () => Object.assign(new Error('too many executions'), { name: 'ExecutionLimitExceeded' });

function pendingRecord(overrides: Partial<StateRecord> = {}): StateRecord {
  return {
    ...buildInitialStateRecord({
      workflowVersion: 1,
      orderId: 'order-1',
      orderFingerprint: 'fp',
      now: NOW - 5_000,
      timings,
      dueShardCount: 4,
      retryBudget: 12,
    }),
    ...overrides,
  };
}

function world(record: StateRecord, workflow: ScriptedWorkflow, orders = new InMemoryOrders([ORDER_1])) {
  let now = NOW;
  const sleeps: number[] = [];
  const states = new InMemoryStates(record);
  const deps: StartDependencies = {
    states,
    orders,
    workflow,
    clock: { now: () => now },
    timings,
    liveWorkflowVersions: [1, 3, 5],
    retry: {
      policy,
      random: () => 0.5,
      sleep: async (millis) => {
        sleeps.push(millis);
        now += millis;
      },
    },
  };
  return { deps, states, sleeps, advance: (millis: number) => (now += millis) };
}

describe('startOrder: retrying StartExecution', () => {
  it('starts the order within one call when StartExecution fails twice and then succeeds', async () => {
    const workflow = new ScriptedWorkflow([unavailable(), unavailable(), 'started']);
    const { deps, states, sleeps } = world(pendingRecord(), workflow);

    expect(await startOrder(message, deps)).toEqual({
      kind: 'started',
      instanceId: 'order-1--attempt-1',
      attempt: 1,
      claimed: true,
      alreadyStarted: false,
      tries: 3,
    });
    expect(sleeps).toEqual([100, 150]);
    expect(new Set(workflow.starts.map((start) => JSON.stringify(start))).size).toBe(1);
    expect(states.claims).toHaveLength(1);
    expect(states.releases).toEqual([]);
    expect(states.record).toMatchObject({ processState: ProcessState.Processing, attempt: 1 });
  });

  it('counts ExecutionAlreadyExists on a later try as started (the lost answer of an earlier try)', async () => {
    const workflow = new ScriptedWorkflow([unavailable(), 'already-started']);
    const { deps, states } = world(pendingRecord(), workflow);
    expect(await startOrder(message, deps)).toMatchObject({
      kind: 'started',
      alreadyStarted: true,
      tries: 2,
    });
    expect(states.releases).toEqual([]);
  });

  it('releases its claim when every try fails: Pending, unlocked, previous Attempt, same FailureCount', async () => {
    const retry = pendingRecord({ attempt: 2, failureCount: 2, completeBy: NOW - 1 });
    const workflow = new ScriptedWorkflow([unavailable()]);
    const { deps, states, sleeps } = world(retry, workflow);

    expect(await startOrder(message, deps)).toEqual({
      kind: 'start-failed',
      instanceId: 'order-1--attempt-3',
      attempt: 3,
      tries: 3,
      error: 'ExecutionLimitExceeded: too many executions',
      release: { kind: 'applied' },
    });
    const releasedAt = NOW + 250;
    expect(sleeps).toEqual([100, 150]);
    expect(states.releases).toEqual([
      {
        kind: 'steps',
        orderId: 'order-1',
        instanceId: 'order-1--attempt-3',
        attempt: 3,
        claimedAt: NOW,
        restoredAttempt: 2,
        completeBy: releasedAt + timings.startGraceSeconds * 1000,
        at: releasedAt,
      },
    ]);
    expect(states.record).toMatchObject({
      processState: ProcessState.Pending,
      attempt: 2,
      failureCount: 2,
      completeBy: releasedAt + 60_000,
    });
    expect(states.record.lockedBy).toBeUndefined();
  });

  it('claims the same attempt again on the next delivery once StartExecution works', async () => {
    const workflow = new ScriptedWorkflow([unavailable(), unavailable(), unavailable(), 'started']);
    const { deps, states } = world(pendingRecord(), workflow);
    expect(await startOrder(message, deps)).toMatchObject({ kind: 'start-failed', attempt: 1 });

    expect(await startOrder(message, deps)).toMatchObject({
      kind: 'started',
      instanceId: 'order-1--attempt-1',
      claimed: true,
    });
    expect(states.record).toMatchObject({ lockedBy: 'order-1--attempt-1', attempt: 1, failureCount: 0 });
    expect(new Set(workflow.starts.map((start) => JSON.stringify(start))).size).toBe(1);
  });

  it('stops trying once the budget is spent, even with tries left', async () => {
    let advance: (millis: number) => void = () => undefined;
    const workflow = new ScriptedWorkflow([unavailable()], () => advance(1500));
    const setup = world(pendingRecord(), workflow);
    advance = setup.advance;
    expect(await startOrder(message, setup.deps)).toMatchObject({
      kind: 'start-failed',
      tries: 2,
      release: { kind: 'applied' },
    });
    expect(setup.sleeps).toEqual([100]);
  });

  it('leaves a record that moved on during the tries alone', async () => {
    const workflow = new ScriptedWorkflow([unavailable()]);
    const { deps, states } = world(pendingRecord(), workflow);
    states.beforeRelease = () => {
      // The execution did start (its answer was lost) and MarkRunning wrote.
      states.record = { ...states.record, updatedAt: new Date(NOW + 40).toISOString() };
    };
    expect(await startOrder(message, deps)).toMatchObject({
      kind: 'start-failed',
      release: { kind: 'lost' },
    });
    expect(states.record).toMatchObject({
      processState: ProcessState.Processing,
      lockedBy: 'order-1--attempt-1',
      attempt: 1,
    });
  });

  it('reports a release that failed, keeping the start error', async () => {
    const workflow = new ScriptedWorkflow([unavailable()]);
    const { deps, states } = world(pendingRecord(), workflow);
    states.releaseFails = Object.assign(new Error('table is gone'), { name: 'ResourceNotFoundException' });
    expect(await startOrder(message, deps)).toMatchObject({
      kind: 'start-failed',
      error: 'ExecutionLimitExceeded: too many executions',
      release: { kind: 'failed', error: 'ResourceNotFoundException: table is gone' },
    });
    expect(states.record).toMatchObject({ processState: ProcessState.Processing });
  });

  it('retries a resumed start but never releases a claim it did not make', async () => {
    const claimed = pendingRecord({
      processState: ProcessState.Processing,
      lockedBy: 'order-1--attempt-1',
      attempt: 1,
      ...planAttempt({ workflowVersion: 1, steps: {} }, NOW - 100, timings),
    });
    const workflow = new ScriptedWorkflow([unavailable()]);
    const { deps, states } = world(claimed, workflow);
    expect(await startOrder(message, deps)).toMatchObject({
      kind: 'start-failed',
      instanceId: 'order-1--attempt-1',
      tries: 3,
      release: { kind: 'not-ours' },
    });
    expect(states.claims).toEqual([]);
    expect(states.releases).toEqual([]);
    expect(states.record).toBe(claimed);
  });
});

describe('startOrder: the execution input of classic, lean and compact versions', () => {
  const inputOf = (workflow: ScriptedWorkflow) => JSON.parse(workflow.starts[0]?.input ?? '{}');

  it('gives a lean version (3) the order in its input, read from the business database', async () => {
    const workflow = new ScriptedWorkflow(['started']);
    const orders = new InMemoryOrders([ORDER_1]);
    const { deps } = world(pendingRecord({ workflowVersion: 3 }), workflow, orders);

    expect(await startOrder(message, deps)).toMatchObject({ kind: 'started', claimed: true });

    expect(workflow.starts[0]?.workflowVersion).toBe(3);
    expect(inputOf(workflow)).toEqual({
      orderId: 'order-1',
      instanceId: 'order-1--attempt-1',
      attempt: 1,
      correlationId: 'corr-1',
      workflowVersion: 3,
      order: {
        customerId: 'customer-1',
        items: [{ sku: 'BOOK', quantity: 2 }],
        totalCents: 1999,
        currency: 'EUR',
      },
    });
    expect(orders.reads).toBe(1);
  });

  it('keeps a classic version (1) input as it was, and never reads the order', async () => {
    const workflow = new ScriptedWorkflow(['started']);
    const orders = new InMemoryOrders([ORDER_1]);
    const { deps } = world(pendingRecord(), workflow, orders);

    await startOrder(message, deps);

    expect(workflow.starts[0]?.input).toBe(
      '{"orderId":"order-1","instanceId":"order-1--attempt-1","attempt":1,"correlationId":"corr-1","workflowVersion":1}',
    );
    expect(orders.reads).toBe(0);
  });

  it('re-issues a lean start of the same claim with byte-identical input (the order is immutable)', async () => {
    const first = new ScriptedWorkflow(['started']);
    const { deps, states } = world(pendingRecord({ workflowVersion: 3 }), first);
    await startOrder(message, deps);
    const again = new ScriptedWorkflow(['already-started']);
    const resumed = world(states.record, again);
    expect(await startOrder(message, resumed.deps)).toMatchObject({ kind: 'started', claimed: false });
    expect(again.starts[0]?.input).toBe(first.starts[0]?.input);
  });

  it('gives a compact version (5) the order and the claimed record as the state machine reads it, so it needs no LoadStateRecord', async () => {
    const workflow = new ScriptedWorkflow(['started']);
    const { deps, states } = world(pendingRecord({ workflowVersion: 5 }), workflow);

    expect(await startOrder(message, deps)).toMatchObject({ kind: 'started', claimed: true });

    const input = inputOf(workflow);
    expect(input.order).toEqual(expect.objectContaining({ customerId: 'customer-1' }));
    const plan = states.record.plan ?? {};
    expect(Object.keys(plan).length).toBeGreaterThan(0);
    expect(input.record).toEqual({
      Item: {
        LockedBy: { S: 'order-1--attempt-1' },
        ProcessState: { S: ProcessState.Processing },
        Steps: {
          M: {
            ReserveInventory: { M: { Status: { S: 'NotStarted' } } },
            ChargePayment: { M: { Status: { S: 'NotStarted' } } },
            ScheduleShipping: { M: { Status: { S: 'NotStarted' } } },
          },
        },
        // The claim's plan, as the claim wrote it.
        Plan: {
          M: Object.fromEntries(
            Object.entries(plan).map(([operation, at]) => [operation, { N: String(at) }]),
          ),
        },
        CompensationLog: { M: {} },
        CompensationFailureCount: { N: '0' },
      },
    });
  });

  it("hands a compensation claim's execution CompensationInProgress, each step's status and each log entry's", async () => {
    const workflow = new ScriptedWorkflow(['started']);
    const record = pendingRecord({
      workflowVersion: 5,
      processState: ProcessState.CompensationInProgress,
      attempt: 1,
      completeBy: NOW - 1_000,
      compensationFailureCount: 1,
      steps: {
        ReserveInventory: { status: 'Completed' },
        ChargePayment: { status: 'Failed' },
        ScheduleShipping: { status: 'NotStarted' },
      },
      compensationLog: {
        ReserveInventory: {
          seq: 1,
          compensation: 'ReleaseInventory',
          undoes: 'order-1:ReserveInventory',
          status: 'Recorded',
        },
      },
    });
    const { deps } = world(record, workflow);

    expect(await startOrder(message, deps)).toMatchObject({ kind: 'started', claimed: true });

    const item = inputOf(workflow).record.Item;
    expect(item.LockedBy).toEqual({ S: 'order-1--attempt-2' });
    expect(item.ProcessState).toEqual({ S: ProcessState.CompensationInProgress });
    expect(item.Steps.M.ChargePayment).toEqual({ M: { Status: { S: 'Failed' } } });
    expect(item.CompensationLog).toEqual({ M: { ReserveInventory: { M: { Status: { S: 'Recorded' } } } } });
    expect(item.CompensationFailureCount).toEqual({ N: '1' });
  });

  it('re-issues a compact start of the same claim with byte-identical input (the record as claimed)', async () => {
    const first = new ScriptedWorkflow(['started']);
    const { deps, states } = world(pendingRecord({ workflowVersion: 5 }), first);
    await startOrder(message, deps);
    const again = new ScriptedWorkflow(['already-started']);
    const resumed = world(states.record, again);
    expect(await startOrder(message, resumed.deps)).toMatchObject({ kind: 'started', claimed: false });
    expect(again.starts[0]?.input).toBe(first.starts[0]?.input);
  });

  it('fails when a lean version order is missing, before claiming anything', async () => {
    const workflow = new ScriptedWorkflow(['started']);
    const record = pendingRecord({ workflowVersion: 3 });
    const { deps, states } = world(record, workflow, new InMemoryOrders([]));

    await expect(startOrder(message, deps)).rejects.toThrow(MissingOrderError);
    expect(states.claims).toEqual([]);
    expect(workflow.starts).toEqual([]);
    expect(states.record).toBe(record);
  });

  it('fails when an input would exceed the 256 KiB execution input limit, rather than truncating', () => {
    const huge = { ...ORDER_1, customerId: 'x'.repeat(MAX_EXECUTION_INPUT_BYTES) };
    expect(() =>
      workflowExecutionInput({
        orderId: 'order-1',
        instanceId: 'order-1--attempt-1',
        attempt: 1,
        correlationId: 'corr-1',
        workflowVersion: 3,
        order: {
          customerId: huge.customerId,
          items: [{ sku: 'BOOK', quantity: 1 }],
          totalCents: 1,
          currency: 'EUR',
        },
      }),
    ).toThrow(/above Step Functions' 262144/);
  });
});
