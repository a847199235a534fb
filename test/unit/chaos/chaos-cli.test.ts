import { chaosReplayLine, parseChaosArguments } from '../../../bin/chaos';
import { deliveryReplayLine, parseDeliveryChaosArguments } from '../../../bin/chaos-deliveries';
import { parseSeededRunArguments } from '../../../bin/seeded-run';
import { DELIVERY_FAULT_KINDS, DeliveryFaultKind } from '../../../lib/chaos/deliveries/faults';
import { FAULT_KINDS, FaultKind } from '../../../lib/chaos/orders/faults';

describe('npm run chaos arguments', () => {
  it('defaults to the campaign defaults when given nothing', () => {
    expect(parseChaosArguments([])).toEqual({ keepData: false });
  });

  it('reads the trace file that makes the run replayable', () => {
    expect(parseChaosArguments(['--seed', '4', '--trace', 'run.trace'])).toEqual({
      seed: 4,
      trace: 'run.trace',
      keepData: false,
    });
    expect(() => parseChaosArguments(['--trace'])).toThrow('--trace needs a value');
  });

  it('prints the command that replays a traced run, and how to get one otherwise', () => {
    const traced = ['--seed', '4', '--trace', 'run.trace'];
    expect(chaosReplayLine(traced, parseChaosArguments(traced))).toBe(
      'replay (the same trace on this commit: lib/chaos/README.md, Replay): npm run chaos -- --seed 4 --trace run.trace',
    );
    expect(chaosReplayLine(['--seed', '4'], parseChaosArguments(['--seed', '4']))).toMatch(
      /^not replayable \(no --trace\): npm run chaos -- --seed 4 --trace FILE/,
    );
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
      '--admission-limit',
      '8',
      '--keep-data',
    ]);
    expect(options.orders).toBe(100);
    expect(options.seed).toBe(7);
    expect(options.enabledKinds).toEqual(
      FAULT_KINDS.filter((kind) => kind !== FaultKind.ClockSkew && kind !== FaultKind.RuntimeRestart),
    );
    expect(options.rates?.remoteTransientPerCall).toBe(0.1);
    expect(options.clockSkewMillis).toBe(200);
    expect(options.admissionLimit).toBe(8);
    expect(options.keepData).toBe(true);
  });

  it('takes the runtime clock, wall or virtual, and names what it takes otherwise', () => {
    expect(parseChaosArguments(['--clock', 'virtual']).clock).toBe('virtual');
    expect(parseDeliveryChaosArguments(['--clock', 'wall']).clock).toBe('wall');
    expect(() => parseChaosArguments(['--clock', 'fast'])).toThrow(
      "--clock must be wall or virtual, got 'fast'",
    );
    expect(() => parseDeliveryChaosArguments(['--clock', 'x'])).toThrow(
      "--clock must be wall or virtual, got 'x'",
    );
  });

  it("takes another profile's workflow timings for the orders campaign, and names a bad one", () => {
    expect(parseChaosArguments(['--timings', 'default']).timings).toBe('default');
    expect(parseChaosArguments([]).timings).toBeUndefined();
    expect(() => parseChaosArguments(['--timings', 'prod'])).toThrow(
      '--timings must name a profile (default, local), got "prod"',
    );
  });

  it('refuses bad input with a message naming it', () => {
    expect(() => parseChaosArguments(['--orders', '0'])).toThrow("--orders must be an integer >= 1, got '0'");
    expect(() => parseChaosArguments(['--admission-limit', '0'])).toThrow(
      "--admission-limit must be an integer >= 1, got '0'",
    );
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

describe('npm run chaos:deliveries arguments', () => {
  it('reads counts, kinds and switches, and leaves the rest to the campaign defaults', () => {
    expect(parseDeliveryChaosArguments([])).toEqual({ keepData: false });
    const options = parseDeliveryChaosArguments([
      '--deliveries',
      '24',
      '--seed',
      '7',
      '--without',
      'runtime-restart',
      '--min-delivered',
      '0.5',
      '--keep-data',
    ]);
    expect(options).toEqual({
      deliveries: 24,
      seed: 7,
      enabledKinds: DELIVERY_FAULT_KINDS.filter((kind) => kind !== DeliveryFaultKind.RuntimeRestart),
      minDeliveredShare: 0.5,
      keepData: true,
    });
  });

  it('reads the trace file, and prints the command that replays a traced run or how to get one', () => {
    const traced = ['--seed', '5', '--trace', 'd.trace'];
    expect(parseDeliveryChaosArguments(traced)).toEqual({ seed: 5, trace: 'd.trace', keepData: false });
    expect(() => parseDeliveryChaosArguments(['--trace'])).toThrow('--trace needs a value');
    expect(deliveryReplayLine(traced, parseDeliveryChaosArguments(traced))).toBe(
      'replay (the same trace on this commit: lib/chaos/README.md, Replay): npm run chaos:deliveries -- --seed 5 --trace d.trace',
    );
    expect(deliveryReplayLine(['--seed', '5'], parseDeliveryChaosArguments(['--seed', '5']))).toMatch(
      /^not replayable \(no --trace\): npm run chaos:deliveries -- --seed 5 --trace FILE/,
    );
  });

  it('refuses bad input with a message naming it', () => {
    expect(() => parseDeliveryChaosArguments(['--deliveries', '0'])).toThrow(
      "--deliveries must be an integer >= 1, got '0'",
    );
    expect(() => parseDeliveryChaosArguments(['--only', 'clock-skew'])).toThrow(
      "unknown fault kind 'clock-skew'",
    );
    expect(() => parseDeliveryChaosArguments(['--orders', '3'])).toThrow("Unknown argument '--orders'");
  });
});

describe('npm run seeded-run arguments', () => {
  it('defaults to seed 1, 3 orders, no delivery, 20 minutes and a trace file named by the seed', () => {
    expect(parseSeededRunArguments([])).toEqual({
      seed: 1,
      orders: 3,
      deliveries: 0,
      clockMinutes: 20,
      traceFile: '.local/seeded-run/trace-1.txt',
    });
  });

  it('reads the seed, orders, minutes, trace file and assembly, and refuses what it does not know', () => {
    expect(
      parseSeededRunArguments([
        '--seed',
        '7',
        '--orders',
        '2',
        '--minutes',
        '5',
        '--trace',
        't.txt',
        '--assembly',
        'a',
      ]),
    ).toEqual({ seed: 7, orders: 2, deliveries: 0, clockMinutes: 5, traceFile: 't.txt', assemblyDir: 'a' });
    expect(parseSeededRunArguments(['--deliveries', '2']).deliveries).toBe(2);
    expect(() => parseSeededRunArguments(['--orders', '0'])).toThrow(/--orders/);
    expect(() => parseSeededRunArguments(['--clock', 'wall'])).toThrow(/Unknown argument '--clock'/);
  });
});
