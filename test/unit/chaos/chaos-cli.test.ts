import { parseChaosArguments } from '../../../bin/chaos';
import { FAULT_KINDS, FaultKind } from '../../../lib/chaos/core/faults';

describe('npm run chaos arguments', () => {
  it('defaults to the campaign defaults when given nothing', () => {
    expect(parseChaosArguments([])).toEqual({ keepData: false });
  });

  it('reads numbers, kinds and flags', () => {
    const options = parseChaosArguments([
      '--orders',
      '100',
      '--seed',
      '7',
      '--without',
      'clock-skew,runtime-restart',
      '--transient-rate',
      '0.1',
      '--clock-skew-ms',
      '200',
      '--keep-data',
    ]);
    expect(options.orders).toBe(100);
    expect(options.seed).toBe(7);
    expect(options.enabledKinds).toEqual(
      FAULT_KINDS.filter((kind) => kind !== FaultKind.ClockSkew && kind !== FaultKind.RuntimeRestart),
    );
    expect(options.rates?.remoteTransientPerCall).toBe(0.1);
    expect(options.clockSkewMillis).toBe(200);
    expect(options.keepData).toBe(true);
  });

  it('refuses bad input with a message naming it', () => {
    expect(() => parseChaosArguments(['--orders', '0'])).toThrow("--orders must be an integer >= 1, got '0'");
    expect(() => parseChaosArguments(['--only', 'meteor-strike'])).toThrow(
      "unknown fault kind 'meteor-strike'",
    );
    expect(() => parseChaosArguments(['--frobnicate'])).toThrow("Unknown argument '--frobnicate'");
    expect(() => parseChaosArguments(['--seed'])).toThrow('--seed needs a value');
    expect(() => parseChaosArguments(['--only', 'clock-skew', '--without', 'clock-skew'])).toThrow(
      'Use --only or --without, not both',
    );
  });
});
