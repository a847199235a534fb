/**
 * A campaign's clock: `--clock` as given; with a trace file, a virtual clock seeded by the seed that
 * writes each admission and timer to the file as it goes, until the run ends the trace.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { campaignClock } from '../../../../lib/chaos/common/campaign-clock';

describe('campaignClock', () => {
  it('without a trace, is the clock --clock names, unseeded', () => {
    expect(campaignClock(undefined, 3, undefined).clock.mode).toBe('wall');
    const virtual = campaignClock('virtual', 3, undefined);
    expect(virtual.clock.mode).toBe('virtual');
    expect(virtual.clock.seed).toBeUndefined();
    expect(virtual.traceFile).toBeUndefined();
  });

  it('with a trace, is a virtual clock seeded by the seed, written as it goes until ended', async () => {
    // Its directory is made if missing.
    const file = join(mkdtempSync(join(tmpdir(), 'campaign-clock-')), 'traces', 'run.trace');
    const traced = campaignClock(undefined, 9, file);
    expect(traced.clock.mode).toBe('virtual');
    expect(traced.clock.seed).toBe(9);
    expect(traced.traceFile).toBe(file);
    await traced.clock.sleep(60_000);
    // Written before the run ends: a run that hangs leaves its trace up to there.
    expect(readFileSync(file, 'utf8')).toBe('2050-01-01T00:01:00.000Z timer\n');
    traced.endTrace();
    traced.endTrace();
    await traced.clock.sleep(1_000);
    expect(readFileSync(file, 'utf8')).toBe('2050-01-01T00:01:00.000Z timer\n');
  });

  it('refuses a trace on the wall clock, naming the flags', () => {
    expect(() => campaignClock('wall', 1, 'run.trace')).toThrow('--trace needs the virtual clock');
  });
});
