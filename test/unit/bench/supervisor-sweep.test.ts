import {
  stateRecordFromItem,
  stateRecordToItem,
} from '../../../lambdas/scheduler-agent-supervisor/adapters/state-record-item';
import { ProcessState, TERMINAL_STATES } from '../../../lambdas/scheduler-agent-supervisor/contracts';
import type { StateRecord } from '../../../lambdas/scheduler-agent-supervisor/domain/state-record';
import { decideSupervision } from '../../../lambdas/scheduler-agent-supervisor/domain/supervision-rules';
import { SWEEP_SIZES } from '../../../lib/bench/figures/supervisor-sweep';
import {
  expiredAttemptRecord,
  sweepTableRecords,
  terminalRecord,
} from '../../../lib/bench/figures/supervisor-sweep-records';
import { DEFAULT_PROFILE } from '../../../lib/platform/config';
import { loadConfig } from '../../../lib/scheduler-agent-supervisor/config';

const config = loadConfig(DEFAULT_PROFILE);
const NOW = Date.parse('2026-03-01T12:00:00Z');

/** The record as the store writes it and reads it back (the builders' output must survive both). */
function stored(record: StateRecord): StateRecord {
  return stateRecordFromItem(
    JSON.parse(JSON.stringify(stateRecordToItem(record))) as Record<string, unknown>,
  );
}

describe('the supervisor sweep figure records', () => {
  it('makes expired attempts the supervisor resets: Processing, locked, in the DueIndex, past CompleteBy', () => {
    const record = stored(expiredAttemptRecord('bench-due-0', NOW, config));
    expect(record.processState).toBe(ProcessState.Processing);
    expect(record.dueShard).toBeDefined();
    expect(record.lockedBy).toBeDefined();
    expect(record.completeBy).toBeLessThan(NOW);
    expect(decideSupervision(record, NOW, config.timings)).toMatchObject({ kind: 'reset', failureCount: 1 });
  });

  it.each(TERMINAL_STATES)('makes finished %s records that are out of the DueIndex and unlocked', (state) => {
    const record = stored(terminalRecord('bench-done-0', state, NOW, config));
    expect(record.processState).toBe(state);
    expect(record.dueShard).toBeUndefined();
    expect(record.lockedBy).toBeUndefined();
    expect(record.admissionShard).toBeUndefined();
    expect(Object.keys(record.compensationLog).length).toBeGreaterThan(0);
  });

  it('puts the same due records in every table and finished ones in the stated mix', () => {
    const small = sweepTableRecords({ due: 3, others: 40 }, NOW, config);
    const large = sweepTableRecords({ due: 3, others: 400 }, NOW, config);
    expect(small.due.map((record) => record.orderId)).toEqual(large.due.map((record) => record.orderId));
    expect(large.others).toHaveLength(400);
    const states = large.others.map((record) => record.processState);
    expect(states.filter((state) => state === ProcessState.Processed)).toHaveLength(340);
    for (const state of [ProcessState.Compensated, ProcessState.Error, ProcessState.CompensationFailed]) {
      expect(states.filter((candidate) => candidate === state)).toHaveLength(20);
    }
  });

  it('sizes the quick run down and keeps the issue sizes for the full one', () => {
    expect(SWEEP_SIZES.full).toEqual({ due: 50, small: 1_000, large: 20_000 });
    expect(SWEEP_SIZES.quick.large).toBeLessThan(SWEEP_SIZES.full.large);
  });
});
