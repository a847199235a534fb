import { ProcessState } from '../../../lambdas/scheduler-agent-supervisor/contracts';
import { type DueRecord } from '../../../lambdas/scheduler-agent-supervisor/domain/ports';
import {
  backoffSecondsFor,
  decideSupervision,
  MAX_SQS_DELAY_SECONDS,
  type SupervisionTimings,
} from '../../../lambdas/scheduler-agent-supervisor/domain/supervision-rules';

const NOW = 1_900_000_000_000;
const timings: SupervisionTimings = {
  maxFailures: 5,
  maxCompensationFailures: 3,
  retryBackoffSeconds: 60,
  extendedBackoffAfter: 3,
  extendedBackoffSeconds: 900,
  startGraceSeconds: 120,
};

function expired(overrides: Partial<DueRecord> = {}): DueRecord {
  return {
    orderId: 'order-1',
    processState: ProcessState.Processing,
    lockedBy: 'order-1--attempt-1',
    completeBy: NOW - 1,
    failureCount: 0,
    attempt: 1,
    compensationFailureCount: 0,
    ...overrides,
  };
}

describe('backoffSecondsFor', () => {
  it.each([
    [1, 60],
    [2, 60],
    [3, 900],
    [4, 900],
  ])('after failure %i waits %is', (failureCount, seconds) => {
    expect(backoffSecondsFor(failureCount, timings)).toBe(seconds);
  });
});

describe('decideSupervision for an expired Processing record', () => {
  it.each([
    [0, 1, 60],
    [1, 2, 60],
    [2, 3, 900],
    [3, 4, 900],
  ])(
    'with FailureCount %i resets to Pending with FailureCount %i and a %is back-off',
    (seen, next, backoff) => {
      const decision = decideSupervision(expired({ failureCount: seen, attempt: seen + 1 }), NOW, timings);
      expect(decision).toEqual({
        kind: 'reset',
        failureCount: next,
        backoffSeconds: backoff,
        // Claim deadline = end of back-off + start grace (see pendingCompleteBy).
        completeBy: NOW + backoff * 1000 + 120_000,
        startDelaySeconds: backoff,
      });
    },
  );

  it('fails the order when the new FailureCount reaches maxFailures', () => {
    const decision = decideSupervision(
      expired({ failureCount: 4, attempt: 5, lockedBy: 'order-1--attempt-5' }),
      NOW,
      timings,
    );
    expect(decision).toMatchObject({
      kind: 'fail',
      failureCount: 5,
      lastError: {
        source: 'supervisor',
        error: 'FailureThresholdReached',
        at: new Date(NOW).toISOString(),
      },
    });
    expect(decision.kind === 'fail' && decision.lastError.cause).toMatch(
      /order-1--attempt-5.*5 failed attempts/,
    );
  });

  it('never resets past maxFailures, for any threshold', () => {
    for (let maxFailures = 1; maxFailures <= 6; maxFailures += 1) {
      const t = { ...timings, maxFailures, extendedBackoffAfter: Math.max(1, maxFailures - 1) };
      for (let failureCount = 0; failureCount < maxFailures + 2; failureCount += 1) {
        const decision = decideSupervision(expired({ failureCount }), NOW, t);
        expect(decision.kind).toBe(failureCount + 1 >= maxFailures ? 'fail' : 'reset');
      }
    }
  });

  it(`caps the start message delay at ${MAX_SQS_DELAY_SECONDS}s but keeps the full back-off in CompleteBy`, () => {
    const decision = decideSupervision(expired({ failureCount: 3 }), NOW, {
      ...timings,
      extendedBackoffSeconds: 3600,
    });
    expect(decision).toMatchObject({
      kind: 'reset',
      backoffSeconds: 3600,
      startDelaySeconds: MAX_SQS_DELAY_SECONDS,
      completeBy: NOW + 3_600_000 + 120_000,
    });
  });

  it('treats CompleteBy equal to now as expired', () => {
    expect(decideSupervision(expired({ completeBy: NOW }), NOW, timings).kind).toBe('reset');
  });

  it('skips a Processing record without LockedBy as inconsistent (it cannot be fenced)', () => {
    const { lockedBy: _ignored, ...unlocked } = expired();
    expect(decideSupervision(unlocked, NOW, timings)).toMatchObject({ kind: 'skip', reason: 'inconsistent' });
  });
});

describe('decideSupervision for other records', () => {
  it('re-queues an overdue Pending record with a new claim deadline', () => {
    const pending: DueRecord = {
      orderId: 'o',
      processState: ProcessState.Pending,
      completeBy: NOW - 5,
      failureCount: 0,
      attempt: 0,
      compensationFailureCount: 0,
    };
    expect(decideSupervision(pending, NOW, timings)).toEqual({ kind: 'restart', completeBy: NOW + 120_000 });
  });

  it('skips a Pending record that holds a lock as inconsistent', () => {
    const pending: DueRecord = {
      orderId: 'o',
      processState: ProcessState.Pending,
      lockedBy: 'o--attempt-1',
      completeBy: NOW - 5,
      failureCount: 0,
      attempt: 1,
      compensationFailureCount: 0,
    };
    expect(decideSupervision(pending, NOW, timings)).toMatchObject({ kind: 'skip', reason: 'inconsistent' });
  });

  it.each([ProcessState.Processing, ProcessState.Pending, ProcessState.CompensationInProgress])(
    'skips a %s record that is not due yet',
    (processState) => {
      expect(decideSupervision(expired({ processState, completeBy: NOW + 1 }), NOW, timings)).toMatchObject({
        kind: 'skip',
        reason: 'not-due',
      });
    },
  );

  it.each([
    ProcessState.Processed,
    ProcessState.Error,
    ProcessState.Compensated,
    ProcessState.CompensationFailed,
  ])('skips a %s record (not supervised)', (processState) => {
    expect(decideSupervision(expired({ processState }), NOW, timings)).toMatchObject({
      kind: 'skip',
      reason: 'not-supervised',
    });
  });
});

describe('decideSupervision for an expired CompensationInProgress record', () => {
  const compensating = (overrides: Partial<DueRecord> = {}) =>
    expired({ processState: ProcessState.CompensationInProgress, failureCount: 4, ...overrides });

  it.each([
    [0, 1],
    [1, 2],
  ])(
    'locked, with CompensationFailureCount %i below maxCompensationFailures: unlocks it with count %i after a back-off',
    (seen, next) => {
      expect(decideSupervision(compensating({ compensationFailureCount: seen }), NOW, timings)).toEqual({
        kind: 'reset-compensation',
        compensationFailureCount: next,
        backoffSeconds: 60,
        completeBy: NOW + 60_000 + 120_000,
        startDelaySeconds: 60,
      });
    },
  );

  it('locked, reaching maxCompensationFailures: CompensationFailed with the reason (FailureCount plays no part)', () => {
    const decision = decideSupervision(compensating({ compensationFailureCount: 2 }), NOW, timings);
    expect(decision).toMatchObject({
      kind: 'fail-compensation',
      compensationFailureCount: 3,
      lastError: { source: 'supervisor', error: 'CompensationThresholdReached' },
    });
    expect(decision.kind === 'fail-compensation' && decision.lastError.cause).toContain(
      '3 failed compensation attempts reached maxCompensationFailures 3',
    );
  });

  it('unlocked (a cancel or a reset nobody claimed in time): a new start window', () => {
    const { lockedBy: _ignored, ...unlocked } = compensating();
    expect(decideSupervision(unlocked, NOW, timings)).toEqual({
      kind: 'restart-compensation',
      completeBy: NOW + 120_000,
    });
  });
});
