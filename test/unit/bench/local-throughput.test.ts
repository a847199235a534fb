/**
 * The pure parts of figure 3 (local-throughput): what a run of orders comes to next to the
 * emulator floor. The end-to-end run itself is `npm run bench -- --quick --only local-throughput`,
 * which `npm test` runs.
 */
import {
  deliveriesOfRun,
  describeApp,
  describeCpu,
  dynamoDbRequestsPerRequest,
  type LevelRun,
  perSecond,
  stackTableRequests,
} from '../../../lib/bench/figures/local-throughput';
import type { RuntimeUsage } from '../../../lib/local-runtime';

const run = (concurrency: number, requests: number, millis: number, dynamoDbRequests: number): LevelRun => ({
  concurrency,
  requests,
  millis,
  outcomes: { Processed: requests },
  meanLatencyMillis: 1_500,
  dynamoDbRequests,
});

const ORDERS = { plural: 'orders', singular: 'order' };

describe('the local-throughput figure', () => {
  it('counts requests per second from the run time', () => {
    expect(perSecond(run(2, 10, 4_000, 0))).toBe(2.5);
    expect(() => perSecond(run(2, 10, 0, 0))).toThrow(/cannot divide/);
  });

  it('gives the fleet a drone for every delivery of a run: the warm-up and each level', () => {
    const sizes = {
      levels: { orders: [1], deliveries: [1, 2, 16] },
      requestsAt: (concurrency: number) => Math.max(6, 3 * concurrency),
      warmUp: 4,
    };
    expect(deliveriesOfRun(sizes)).toBe(4 + 6 + 6 + 48);
  });

  it('takes the DynamoDB requests per app request over every level', () => {
    expect(dynamoDbRequestsPerRequest([run(1, 6, 1, 240), run(4, 12, 1, 480)])).toBe(40);
  });

  it("counts only the named stack's tables, stand-ins included", () => {
    const table = (stackName: string, requests: number) => ({
      stackName,
      logicalId: `${stackName}Table`,
      requests,
      readUnits: 0,
      writeUnits: 0,
      byOperation: {},
      byCaller: {},
      minimums: { emptyReads: 0, readUnits: 0, conditionalCheckFailures: 0, writeUnits: 0 },
      cancelledTransactions: 0,
    });
    const usage = {
      tables: { state: table('Orders', 30), ledger: table('Orders', 8), deliveries: table('Deliveries', 50) },
    } as unknown as RuntimeUsage;
    expect(stackTableRequests(usage, 'Orders')).toBe(38);
    expect(stackTableRequests(usage, 'Nothing')).toBe(0);
  });

  it('sets the best level against the floor and checks the target from it', () => {
    // 40 ops an order on an emulator doing 800 ops/s: a floor of 20 orders/s.
    const runs = [run(1, 6, 3_000, 240), run(4, 12, 1_200, 480)];
    const { floorPerSecond, target, measurements } = describeApp(ORDERS, runs, 800);
    expect(floorPerSecond).toBe(20);
    expect(target).toMatchObject({ actual: 0.5, bound: 0.5, comparison: 'atLeast', met: true });
    expect(measurements.find((entry) => entry.key === 'orders.c4.perSecond')?.value).toBe(10);
    const slower = describeApp(ORDERS, [run(1, 6, 3_000, 240)], 800);
    expect(slower.target).toMatchObject({ actual: 0.1, met: false });
  });
});

describe("the local-throughput figure's CPU accounting", () => {
  const cpu = (main: number, threads: number, java: number) => ({
    runtimeMainThread: main,
    runtimeOtherThreads: threads,
    dynamodbLocal: java,
    otherProcesses: 0,
    endedProcesses: 0,
  });

  it('gives CPU-seconds per request by process at the highest level measured, and the ceiling they allow', () => {
    const runs = [
      { ...run(1, 6, 3_000, 240), cpuSeconds: cpu(6, 6, 6) },
      { ...run(8, 24, 12_000, 960), cpuSeconds: cpu(6, 12, 6) },
    ];
    // A floor of 8 orders/s.
    const { measurements, perRequest, concurrency } = describeCpu(ORDERS, runs, 2, 8);
    expect(concurrency).toBe(8);
    expect(perRequest).toEqual(cpu(0.25, 0.5, 0.25));
    const value = (key: string) => measurements.find((entry) => entry.key === key)?.value;
    expect(value('orders.cpuSecondsPer.runtimeOtherThreads')).toBe(0.5);
    expect(value('orders.cpuSecondsPer.total')).toBe(1);
    // 2 cores / 1 CPU-second an order.
    expect(value('orders.cpuCeiling.perSecond')).toBe(2);
    expect(value('orders.cpuCeiling.shareOfFloor')).toBe(0.25);
  });

  it('measures nothing when no level was measured (no /proc)', () => {
    expect(describeCpu(ORDERS, [run(1, 6, 3_000, 240)], 2, 8)).toEqual({ measurements: [] });
  });
});
