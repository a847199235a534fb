import {
  CompensationStatus,
  ProcessState,
  StepStatus,
} from '../../../lambdas/scheduler-agent-supervisor/contracts';
import {
  type ClaimTimings,
  clockSkewToleranceMillis,
  decideClaim,
  latestClaimableCompleteBy,
  planAttempt,
  planCompensation,
  planRelease,
  stepWindowMillis,
  workflowExecutionInput,
} from '../../../lambdas/scheduler-agent-supervisor/domain/starter';
import {
  buildInitialStateRecord,
  pendingCompleteBy,
  type StateRecord,
} from '../../../lambdas/scheduler-agent-supervisor/domain/state-record';

const NOW = 1_900_000_000_000;
const timings: ClaimTimings = {
  stepTimeoutSeconds: 120,
  stepDeadlineSlackSeconds: 30,
  startGraceSeconds: 60,
};
const WINDOW = 150_000;

function record(overrides: Partial<StateRecord> = {}): StateRecord {
  return {
    ...buildInitialStateRecord({
      workflowVersion: 1,
      orderId: 'order-1',
      orderFingerprint: 'fp',
      now: NOW - 10_000,
      timings,
      dueShardCount: 4,
      retryBudget: 12,
    }),
    ...overrides,
  };
}

const completed = { status: StepStatus.Completed } as const;
const running = { status: StepStatus.Running } as const;

/** The compensation deadlines of an attempt whose steps end at `stepsEnd`: reverse step order, one window each. */
const compensationsAfter = (stepsEnd: number) => ({
  CancelShipment: stepsEnd + WINDOW,
  RefundPayment: stepsEnd + 2 * WINDOW,
  ReleaseInventory: stepsEnd + 3 * WINDOW,
});

describe('planAttempt', () => {
  it('uses one window per step', () => {
    expect(stepWindowMillis(timings)).toBe(WINDOW);
  });

  it.each([
    [
      'no step completed',
      {},
      {
        ReserveInventory: NOW + WINDOW,
        ChargePayment: NOW + 2 * WINDOW,
        ScheduleShipping: NOW + 3 * WINDOW,
        ...compensationsAfter(NOW + 3 * WINDOW),
      },
      NOW + WINDOW,
    ],
    [
      'the first step completed',
      { ReserveInventory: completed, ChargePayment: running },
      {
        ReserveInventory: NOW,
        ChargePayment: NOW + WINDOW,
        ScheduleShipping: NOW + 2 * WINDOW,
        ...compensationsAfter(NOW + 2 * WINDOW),
      },
      NOW + WINDOW,
    ],
    [
      'a middle step completed',
      { ChargePayment: completed },
      {
        ReserveInventory: NOW + WINDOW,
        ChargePayment: NOW,
        ScheduleShipping: NOW + 2 * WINDOW,
        ...compensationsAfter(NOW + 2 * WINDOW),
      },
      NOW + WINDOW,
    ],
    [
      'two steps completed',
      { ReserveInventory: completed, ChargePayment: completed },
      {
        ReserveInventory: NOW,
        ChargePayment: NOW,
        ScheduleShipping: NOW + WINDOW,
        ...compensationsAfter(NOW + WINDOW),
      },
      NOW + WINDOW,
    ],
    [
      'every step completed (died before MarkProcessed)',
      { ReserveInventory: completed, ChargePayment: completed, ScheduleShipping: completed },
      {
        ReserveInventory: NOW,
        ChargePayment: NOW,
        ScheduleShipping: NOW,
        ...compensationsAfter(NOW),
      },
      NOW + WINDOW,
    ],
  ])('with %s', (_case, steps, expectedPlan, expectedCompleteBy) => {
    expect(planAttempt({ workflowVersion: 1, steps }, NOW, timings)).toEqual({
      plan: expectedPlan,
      completeBy: expectedCompleteBy,
    });
  });

  it('never gives a step still to run a deadline at or before the claim, whatever the timings', () => {
    for (const timeout of [1, 6, 120]) {
      for (const slack of [0, 2, 30]) {
        const t = { ...timings, stepTimeoutSeconds: timeout, stepDeadlineSlackSeconds: slack };
        const { plan, completeBy } = planAttempt(
          { workflowVersion: 1, steps: { ChargePayment: completed } },
          NOW,
          t,
        );
        expect(plan.ReserveInventory).toBeGreaterThan(NOW);
        expect(plan.ScheduleShipping).toBeGreaterThan(plan.ReserveInventory ?? 0);
        expect(completeBy).toBe(plan.ReserveInventory);
        // Compensations come after every step, in the order they run (reverse step order).
        expect(plan.CancelShipment).toBeGreaterThan(plan.ScheduleShipping ?? 0);
        expect(plan.RefundPayment).toBeGreaterThan(plan.CancelShipment ?? 0);
        expect(plan.ReleaseInventory).toBeGreaterThan(plan.RefundPayment ?? 0);
      }
    }
  });
});

describe('planCompensation', () => {
  const entry = (status: CompensationStatus) => ({ seq: 1, compensation: 'X', undoes: 'o:X', status });

  it('plans only compensations: the ones that may still run one window each, in reverse step order', () => {
    const plan = planCompensation(
      {
        workflowVersion: 1,
        steps: { ReserveInventory: completed, ChargePayment: completed, ScheduleShipping: running },
        compensationLog: {
          ReserveInventory: entry(CompensationStatus.Recorded),
          ChargePayment: entry(CompensationStatus.Compensating),
        },
      },
      NOW,
      timings,
    );
    expect(plan).toEqual({
      plan: { CancelShipment: NOW, RefundPayment: NOW + WINDOW, ReleaseInventory: NOW + 2 * WINDOW },
      completeBy: NOW + WINDOW,
    });
  });

  it('gives an uncertain (TimedOut) step a window, and none to a compensated one', () => {
    expect(
      planCompensation(
        {
          workflowVersion: 1,
          steps: {
            ReserveInventory: { status: StepStatus.Compensated },
            ChargePayment: { status: StepStatus.TimedOut },
          },
          compensationLog: { ReserveInventory: entry(CompensationStatus.Compensated) },
        },
        NOW,
        timings,
      ),
    ).toEqual({
      plan: { CancelShipment: NOW, RefundPayment: NOW + WINDOW, ReleaseInventory: NOW },
      completeBy: NOW + WINDOW,
    });
  });

  it('still gives one window when there is nothing to undo', () => {
    expect(planCompensation({ workflowVersion: 1, steps: {}, compensationLog: {} }, NOW, timings)).toEqual({
      plan: { CancelShipment: NOW, RefundPayment: NOW, ReleaseInventory: NOW },
      completeBy: NOW + WINDOW,
    });
  });
});

describe('decideClaim', () => {
  it('claims a new order (attempt 0) at once, for attempt 1', () => {
    const decision = decideClaim(record(), NOW, timings);
    expect(decision).toEqual({
      kind: 'claim',
      claimKind: 'steps',
      seenAttempt: 0,
      attempt: 1,
      instanceId: 'order-1--attempt-1',
      claimedAt: NOW,
      claimableUntilCompleteBy: NOW + 60_000 + 15_000,
      workflowVersion: 1,
      plan: planAttempt(record(), NOW, timings).plan,
      completeBy: NOW + WINDOW,
    });
  });

  it('claims a new order even when its claim deadline has passed', () => {
    expect(decideClaim(record({ completeBy: NOW - 1 }), NOW, timings)).toMatchObject({
      kind: 'claim',
      attempt: 1,
    });
  });

  it('claims a retry once its back-off has ended, for the next attempt', () => {
    const retry = record({ attempt: 2, failureCount: 2, completeBy: pendingCompleteBy(NOW, timings) });
    expect(decideClaim(retry, NOW, timings)).toMatchObject({
      kind: 'claim',
      seenAttempt: 2,
      attempt: 3,
      instanceId: 'order-1--attempt-3',
    });
  });

  it('claims a retry the supervisor restarted (claim deadline = restart + grace)', () => {
    const restarted = record({
      attempt: 1,
      failureCount: 1,
      completeBy: pendingCompleteBy(NOW - 5, timings),
    });
    expect(decideClaim(restarted, NOW, timings)).toMatchObject({ kind: 'claim', attempt: 2 });
  });

  it('claims a retry whose back-off end was stamped by a clock ahead of ours, within the skew bound', () => {
    // The supervisor's clock runs 15 s (half the 30 s slack) ahead of the starter's.
    const stampedAhead = record({
      attempt: 1,
      failureCount: 1,
      completeBy: pendingCompleteBy(NOW + 15_000, timings),
    });
    expect(decideClaim(stampedAhead, NOW, timings)).toMatchObject({ kind: 'claim', attempt: 2 });
  });

  it('does not claim a retry still in its back-off (early or stale start message)', () => {
    const inBackOff = record({
      attempt: 1,
      failureCount: 1,
      completeBy: pendingCompleteBy(NOW + 15_001, timings),
    });
    expect(decideClaim(inBackOff, NOW, timings)).toEqual({
      kind: 'skip',
      reason: 'in-back-off',
      detail: 'retry back-off ends in 1 ms',
    });
  });

  it('re-issues the start of the existing claim for a Processing record', () => {
    const processing = record({
      processState: ProcessState.Processing,
      lockedBy: 'order-1--attempt-3',
      attempt: 3,
      workflowVersion: 7,
    });
    expect(decideClaim(processing, NOW, timings)).toEqual({
      kind: 'resume',
      instanceId: 'order-1--attempt-3',
      attempt: 3,
      workflowVersion: 7,
    });
  });

  describe('a CompensationInProgress record', () => {
    const cancelled = (overrides: Partial<StateRecord> = {}) =>
      record({
        processState: ProcessState.CompensationInProgress,
        attempt: 2,
        completeBy: pendingCompleteBy(NOW - 1, timings),
        steps: { ReserveInventory: completed, ChargePayment: { status: StepStatus.TimedOut } },
        compensationLog: {
          ReserveInventory: {
            seq: 1,
            compensation: 'ReleaseInventory',
            undoes: 'order-1:ReserveInventory',
            status: CompensationStatus.Recorded,
          },
        },
        ...overrides,
      });

    it('unlocked: claims it for a compensation attempt with a plan of compensation deadlines only', () => {
      const record = cancelled();
      expect(decideClaim(record, NOW, timings)).toEqual({
        kind: 'claim',
        claimKind: 'compensation',
        seenAttempt: 2,
        attempt: 3,
        instanceId: 'order-1--attempt-3',
        claimedAt: NOW,
        claimableUntilCompleteBy: NOW + 60_000 + 15_000,
        workflowVersion: 1,
        plan: planCompensation(record, NOW, timings).plan,
        completeBy: NOW + WINDOW,
      });
    });

    it('unlocked with nothing to undo (cancelled while Pending): still claimed, with one window', () => {
      const pending = cancelled({ attempt: 0, steps: {}, compensationLog: {} });
      expect(decideClaim(pending, NOW, timings)).toMatchObject({
        kind: 'claim',
        claimKind: 'compensation',
        attempt: 1,
        completeBy: NOW + WINDOW,
      });
    });

    it('unlocked but still in the back-off the supervisor set: not yet', () => {
      expect(
        decideClaim(cancelled({ completeBy: pendingCompleteBy(NOW + 15_001, timings) }), NOW, timings),
      ).toEqual({ kind: 'skip', reason: 'in-back-off', detail: 'compensation back-off ends in 1 ms' });
    });

    it('locked: re-issues the start of the existing compensation claim', () => {
      expect(
        decideClaim(cancelled({ lockedBy: 'order-1--attempt-2', workflowVersion: 3 }), NOW, timings),
      ).toEqual({ kind: 'resume', instanceId: 'order-1--attempt-2', attempt: 2, workflowVersion: 3 });
    });

    it('its release gives back the compensation claim', () => {
      const decision = decideClaim(cancelled(), NOW, timings);
      if (decision.kind !== 'claim') throw new Error(`expected a claim, got ${decision.kind}`);
      expect(planRelease('order-1', decision, NOW + 5, timings)).toMatchObject({
        kind: 'compensation',
        restoredAttempt: 2,
        attempt: 3,
      });
    });
  });

  it.each([
    ProcessState.Processed,
    ProcessState.Error,
    ProcessState.Compensated,
    ProcessState.CompensationFailed,
  ])('leaves a %s record alone', (processState) => {
    expect(decideClaim(record({ processState }), NOW, timings)).toMatchObject({
      kind: 'skip',
      reason: 'finished',
    });
  });

  it.each<[string, Partial<StateRecord>]>([
    ['Pending with a lock', { lockedBy: 'order-1--attempt-1' }],
    ['Processing without a lock', { processState: ProcessState.Processing }],
  ])('reports %s as inconsistent instead of guessing', (_case, overrides) => {
    expect(decideClaim(record(overrides), NOW, timings)).toMatchObject({
      kind: 'skip',
      reason: 'inconsistent',
    });
  });
});

describe('planRelease', () => {
  it('gives the claim back: same lock and attempt as fence, previous attempt restored, claimable after the grace', () => {
    const retry = record({ attempt: 2, failureCount: 2, completeBy: pendingCompleteBy(NOW - 1, timings) });
    const decision = decideClaim(retry, NOW, timings);
    if (decision.kind !== 'claim') {
      throw new Error(`expected a claim, got ${decision.kind}`);
    }
    expect(planRelease('order-1', decision, NOW + 1500, timings)).toEqual({
      kind: 'steps',
      orderId: 'order-1',
      instanceId: 'order-1--attempt-3',
      attempt: 3,
      claimedAt: NOW,
      restoredAttempt: 2,
      completeBy: pendingCompleteBy(NOW + 1500, timings),
      at: NOW + 1500,
    });
  });

  it('makes the released record claimable again, for the same attempt', () => {
    const decision = decideClaim(record(), NOW, timings);
    if (decision.kind !== 'claim') {
      throw new Error(`expected a claim, got ${decision.kind}`);
    }
    const release = planRelease('order-1', decision, NOW + 10, timings);
    const released = record({ attempt: release.restoredAttempt, completeBy: release.completeBy });
    expect(decideClaim(released, NOW + 20, timings)).toMatchObject({
      kind: 'claim',
      attempt: 1,
      instanceId: decision.instanceId,
    });
    const releasedRetry = record({ attempt: 4, failureCount: 4, completeBy: release.completeBy });
    expect(decideClaim(releasedRetry, NOW + 20, timings)).toMatchObject({ kind: 'claim', attempt: 5 });
  });
});

describe('latestClaimableCompleteBy', () => {
  it('is now plus the start grace plus the clock-skew tolerance (half the step slack)', () => {
    expect(clockSkewToleranceMillis(timings)).toBe(15_000);
    expect(latestClaimableCompleteBy(NOW, timings)).toBe(NOW + 60_000 + 15_000);
  });
});

describe('workflowExecutionInput', () => {
  const input = {
    orderId: 'o',
    instanceId: 'o--attempt-1',
    attempt: 1,
    correlationId: 'c',
    workflowVersion: 1,
  };

  it('is JSON with exactly the agreed fields', () => {
    expect(JSON.parse(workflowExecutionInput(input))).toEqual(input);
  });

  it('is byte-identical for the same claim whatever the key order of its arguments', () => {
    const reordered = {
      workflowVersion: 1,
      correlationId: 'c',
      attempt: 1,
      instanceId: 'o--attempt-1',
      orderId: 'o',
    };
    expect(workflowExecutionInput(reordered)).toBe(workflowExecutionInput(input));
  });
});
