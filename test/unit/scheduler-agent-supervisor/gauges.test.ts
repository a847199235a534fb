import { ProcessState, SUPERVISED_STATES } from '../../../lambdas/scheduler-agent-supervisor/contracts';
import { measureOrderGauges } from '../../../lambdas/scheduler-agent-supervisor/domain/gauges';
import type { OrderGaugeReader } from '../../../lambdas/scheduler-agent-supervisor/domain/ports';

const NOW = Date.parse('2030-01-01T01:00:00.000Z');

/** An in-memory index of (state, updatedAt, createdAt) rows, read the way the port promises. */
function reader(rows: { state: ProcessState; updatedAt: string; createdAt: string }[]): OrderGaugeReader & {
  calls: unknown[];
} {
  const calls: unknown[] = [];
  return {
    calls,
    async countInState(state, options) {
      calls.push(['count', state, options]);
      const matching = rows.filter(
        (row) =>
          row.state === state &&
          (options.updatedBefore === undefined || row.updatedAt < options.updatedBefore),
      );
      return { count: Math.min(matching.length, options.cap), capped: matching.length > options.cap };
    },
    async earliestCreatedAt(states, cap) {
      calls.push(['earliest', states, cap]);
      const matching = rows.filter((row) => states.includes(row.state)).slice(0, cap);
      const createdAt = matching.map((row) => row.createdAt).sort()[0];
      return {
        ...(createdAt !== undefined && { createdAt }),
        capped: matching.length < rows.filter((row) => states.includes(row.state)).length,
      };
    },
  };
}

describe('order gauges', () => {
  it('measures zero everywhere when nothing is in flight or in Error (so the alarms return to OK)', async () => {
    expect(
      await measureOrderGauges(reader([]), NOW, { compensationStuckAfterSeconds: 60, cap: 100 }),
    ).toEqual({
      ordersInError: 0,
      compensationsStuck: 0,
      oldestInFlightAgeSeconds: 0,
      capped: [],
    });
  });

  it('counts Error orders, compensations idle past the limit, and the oldest in-flight order age', async () => {
    const rows = [
      {
        state: ProcessState.Error,
        updatedAt: '2030-01-01T00:00:00.000Z',
        createdAt: '2029-12-31T00:00:00.000Z',
      },
      {
        state: ProcessState.Error,
        updatedAt: '2030-01-01T00:59:00.000Z',
        createdAt: '2030-01-01T00:00:00.000Z',
      },
      // idle 2 minutes: stuck past a 60 s limit
      {
        state: ProcessState.CompensationInProgress,
        updatedAt: '2030-01-01T00:58:00.000Z',
        createdAt: '2030-01-01T00:50:00.000Z',
      },
      // idle 30 s: progressing
      {
        state: ProcessState.CompensationInProgress,
        updatedAt: '2030-01-01T00:59:30.000Z',
        createdAt: '2030-01-01T00:55:00.000Z',
      },
      {
        state: ProcessState.Processing,
        updatedAt: '2030-01-01T00:59:59.000Z',
        createdAt: '2030-01-01T00:40:00.000Z',
      },
      {
        state: ProcessState.Pending,
        updatedAt: '2030-01-01T00:59:59.000Z',
        createdAt: '2030-01-01T00:59:00.000Z',
      },
      // terminal: neither in flight nor counted
      {
        state: ProcessState.Processed,
        updatedAt: '2030-01-01T00:00:00.000Z',
        createdAt: '2029-01-01T00:00:00.000Z',
      },
    ];
    const index = reader(rows);
    expect(await measureOrderGauges(index, NOW, { compensationStuckAfterSeconds: 60, cap: 100 })).toEqual({
      ordersInError: 2,
      compensationsStuck: 1,
      oldestInFlightAgeSeconds: 20 * 60,
      capped: [],
    });
    expect(index.calls).toContainEqual(['earliest', SUPERVISED_STATES, 100]);
    expect(index.calls).toContainEqual([
      'count',
      ProcessState.CompensationInProgress,
      { updatedBefore: '2030-01-01T00:59:00.000Z', cap: 100 },
    ]);
  });

  it('says which readings stopped at their cap', async () => {
    const errors = Array.from({ length: 3 }, () => ({
      state: ProcessState.Error,
      updatedAt: '2030-01-01T00:00:00.000Z',
      createdAt: '2030-01-01T00:00:00.000Z',
    }));
    const gauges = await measureOrderGauges(reader(errors), NOW, {
      compensationStuckAfterSeconds: 60,
      cap: 2,
    });
    expect(gauges).toMatchObject({ ordersInError: 2, capped: ['ordersInError'] });
  });
});
