/**
 * The pure parts of figure 2 (order-cost): pricing a metered usage, the split of a run into the work
 * of a stack's orders and its fixed cost, and what the figure derives from a batch.
 */

import { costByService, priceUsage, totalUsd } from '../../../lib/bench/core/pricing';
import { type BatchResult, perUnitCounts } from '../../../lib/bench/core/unit-cost';
import { type AppScope, fixedShare, workShare } from '../../../lib/bench/core/usage-scope';
import { monthlyFixedCost, stateStoreWrites, transitionSavings } from '../../../lib/bench/figures/order-cost';
import { US_EAST_1_PRICES } from '../../../lib/bench/prices/us-east-1';
import { CLOUDWATCH_ALARM_DELIVERY, deliveredVia, type RuntimeUsage } from '../../../lib/local-runtime';

const STACK = 'Orders';
const capacity = (requests: number, readUnits: number, writeUnits: number) => ({
  requests,
  readUnits,
  writeUnits,
});
const origin = (logicalId: string, stackName = STACK) => ({ stackName, logicalId });

/** A run of two orders, a sweep, an alarm notification, a stand-in and another stack's function. */
function usage(): RuntimeUsage {
  return {
    stateMachines: {
      flow: { ...origin('Flow'), executions: 2, transitions: 34, transitionsByState: { A: 2 } },
    },
    functions: {
      submit: { ...origin('Submit'), memorySizeMb: 1024, invocations: 2, billedMillis: 1000 },
      sweeper: { ...origin('Sweeper'), memorySizeMb: 512, invocations: 1, billedMillis: 60_000 },
      fake: { ...origin('Fake'), memorySizeMb: 256, invocations: 6, billedMillis: 600 },
      other: { ...origin('Other', 'Deliveries'), memorySizeMb: 256, invocations: 9, billedMillis: 900 },
    },
    queues: {
      'start.fifo': {
        ...origin('Start'),
        requests: 10,
        billedRequests: 11,
        emptyReceives: 4,
        requestsByAction: { SendMessage: 3, ReceiveMessage: 6, DeleteMessageBatch: 1 },
        deliveriesBy: {
          [deliveredVia('SNS', CLOUDWATCH_ALARM_DELIVERY)]: { requests: 1, billedRequests: 1 },
        },
      },
    },
    tables: {
      state: {
        ...origin('State'),
        ...capacity(12, 7.5, 40),
        byOperation: {},
        byCaller: {
          submit: capacity(4, 2, 30),
          sweeper: capacity(5, 4, 10),
          '(unnamed)': capacity(3, 1.5, 0),
        },
        byIndex: { DueIndex: { readUnits: 4, writeUnits: 12 }, StateIndex: { readUnits: 0, writeUnits: 6 } },
        writesByCaller: {
          submit: { requests: 2, writeUnits: 30, byIndex: { DueIndex: 8, StateIndex: 6 } },
          sweeper: { requests: 1, writeUnits: 10, byIndex: { DueIndex: 4 } },
        },
        minimums: { emptyReads: 0, readUnits: 0, conditionalCheckFailures: 0, writeUnits: 0 },
        cancelledTransactions: 0,
      },
      ledger: {
        ...origin('Ledger'),
        ...capacity(3, 0, 3),
        byOperation: {},
        byCaller: { fake: capacity(3, 0, 3) },
        byIndex: {},
        writesByCaller: { fake: { requests: 3, writeUnits: 3, byIndex: {} } },
        minimums: { emptyReads: 0, readUnits: 0, conditionalCheckFailures: 0, writeUnits: 0 },
        cancelledTransactions: 0,
      },
    },
    apis: { api: { ...origin('Api'), requests: 2 } },
    buses: {},
    topics: {
      alerts: {
        ...origin('Alerts'),
        publishes: 3,
        billedRequests: 3,
        payloadBytes: 600,
        publishesBy: { [CLOUDWATCH_ALARM_DELIVERY]: { requests: 3, billedRequests: 3 } },
      },
    },
  };
}

const scope: AppScope = {
  stackName: STACK,
  scheduledRateSeconds: new Map([['Sweeper', 60]]),
  standIns: new Set(['Fake', 'Ledger']),
  notArm64: [],
};

describe('workShare and fixedShare', () => {
  it("keeps the stack's work: no stand-ins, no other stack, no idle receives, no alarms, no sweeps but their writes, no tool's reads", () => {
    const work = workShare(usage(), scope);
    expect(Object.keys(work.functions)).toEqual(['submit']);
    expect(Object.keys(work.tables)).toEqual(['state']);
    expect(work.tables.state).toMatchObject({ requests: 4, readUnits: 2, writeUnits: 40 });
    expect(work.queues['start.fifo']).toMatchObject({
      requests: 5,
      billedRequests: 6,
      emptyReceives: 0,
      requestsByAction: { SendMessage: 2, ReceiveMessage: 2, DeleteMessageBatch: 1 },
    });
    expect(work.topics.alerts).toMatchObject({ publishes: 0, billedRequests: 0 });
  });

  it("keeps the scheduled functions' invocations and reads apart, and nothing else", () => {
    const fixed = fixedShare(usage(), scope);
    expect(Object.keys(fixed.functions)).toEqual(['sweeper']);
    expect(fixed.tables.state).toMatchObject({ requests: 5, readUnits: 4, writeUnits: 0 });
    expect(fixed.tables.ledger).toMatchObject({ requests: 0, readUnits: 0, writeUnits: 0 });
    expect(fixed.queues).toEqual({});
  });
});

describe('priceUsage', () => {
  it('prices each billed unit with the table, FIFO queues at their own price', () => {
    const items = priceUsage(workShare(usage(), scope), US_EAST_1_PRICES);
    const byService = costByService(items);
    expect(byService['Step Functions']).toBeCloseTo(34 * 0.000025, 12);
    // 2 requests, 1 GB x 1 s of arm64 duration.
    expect(byService.Lambda).toBeCloseTo(2 * 0.2e-6 + 1 * 0.0000133334, 12);
    expect(byService.SQS).toBeCloseTo(6 * 0.5e-6, 12);
    expect(byService.DynamoDB).toBeCloseTo(2 * 0.125e-6 + 40 * 0.625e-6, 12);
    expect(byService['API Gateway']).toBeCloseTo(2 * 3.5e-6, 12);
    expect(totalUsd(items)).toBeCloseTo(
      Object.values(byService).reduce((sum, value) => sum + value, 0),
      12,
    );
  });

  it('prices a FIFO topic as AWS does: publishes, payload by the GB, deliveries to FIFO queues', () => {
    const fifo: RuntimeUsage = {
      ...usage(),
      queues: {
        'package.fifo': {
          ...(usage().queues['start.fifo'] as RuntimeUsage['queues'][string]),
          ...origin('PackageQueue'),
          deliveriesBy: {
            SNS: { requests: 2, billedRequests: 2 },
            [deliveredVia('SNS', 'EventBridge')]: { requests: 1, billedRequests: 1 },
            EventBridge: { requests: 5, billedRequests: 5 },
          },
        },
      },
      topics: {
        'requests.fifo': {
          ...origin('Requests'),
          publishes: 3,
          billedRequests: 4,
          payloadBytes: 2 * 1024 ** 3,
          publishesBy: {},
        },
        alerts: { ...origin('Alerts'), publishes: 1, billedRequests: 1, payloadBytes: 10, publishesBy: {} },
      },
    };
    const items = priceUsage(fifo, US_EAST_1_PRICES);
    const quantity = (item: string) => items.find((candidate) => candidate.item === item)?.quantity;
    expect(quantity('FIFO topic publishes')).toBe(4);
    expect(quantity('GB published to FIFO topics')).toBe(2);
    // The SNS deliveries only (whatever caused the publish), not EventBridge's.
    expect(quantity('FIFO topic deliveries to queues')).toBe(3);
    expect(quantity('publishes')).toBe(1);
    expect(costByService(items).SNS).toBeCloseTo(4 * 0.3e-6 + 2 * 0.017 + 3 * 0.01e-6 + 1 * 0.5e-6, 12);
  });
});

describe('what figure 2 derives', () => {
  const batch = (work: RuntimeUsage, units: number): BatchResult => ({ units, outcomes: {}, work });

  it('counts per order', () => {
    const counts = perUnitCounts(batch(workShare(usage(), scope), 2));
    expect(counts).toMatchObject({
      transitions: 17,
      lambdaInvocations: 1,
      dynamoDbWriteUnits: 20,
      sqsRequests: 3,
    });
  });

  it("splits the state store's write units per order by writer, and by the item's and each index's share", () => {
    const writes = stateStoreWrites({
      ...batch(workShare(usage(), scope), 2),
      functionIds: { submit: 'SubmitFunction0A1B2C3D', sweeper: 'SupervisorFunction3FB26FD8' },
    });
    expect(writes).toEqual({
      writeUnits: 20,
      byShare: { table: 11, DueIndex: 6, StateIndex: 3 },
      byWriter: [
        {
          writer: 'SubmitFunction',
          requests: 1,
          writeUnits: 15,
          byShare: { table: 8, DueIndex: 4, StateIndex: 3 },
        },
        { writer: 'SupervisorFunction', requests: 0.5, writeUnits: 5, byShare: { table: 3, DueIndex: 2 } },
      ],
    });
    // A caller that wrote nothing in the window is left out.
    const idle = workShare(usage(), scope);
    const state = idle.tables.state;
    if (!state) throw new Error('the fixture has a state table');
    const quiet = {
      ...state,
      writesByCaller: { ...state.writesByCaller, idle: { requests: 0, writeUnits: 0, byIndex: {} } },
    };
    expect(stateStoreWrites(batch({ ...idle, tables: { state: quiet } }, 2))?.byWriter).toHaveLength(2);
    // A caller the run did not name keeps the meter's name (Step Functions, a tool).
    expect(stateStoreWrites(batch(workShare(usage(), scope), 1))?.byWriter.map((w) => w.writer)).toEqual([
      'submit',
      'sweeper',
    ]);
  });

  it('names the states a change would save, and how many transitions', () => {
    const savings = transitionSavings({
      LoadStateRecord: 1,
      LoadOrder: 1,
      'Pay.Check': 1,
      'Pay.MarkRunning': 1,
      'Ship.Check': 1,
      'Ship.MarkRunning': 1,
      'Ship.Undo.Check': 0.5,
    });
    expect(savings.map((saving) => [saving.states, saving.transitionsSaved])).toEqual([
      [['Pay.Check', 'Ship.Check'], 2],
      [['Pay.MarkRunning', 'Ship.MarkRunning'], 2],
      [['LoadOrder'], 1],
    ]);
  });

  it('names what the compact shape saves in a lean order (MarkCompleted per step and MarkProcessed)', () => {
    const savings = transitionSavings({
      LoadStateRecord: 1,
      CheckLock: 1,
      'Pay.CallAgent': 1,
      'Pay.MarkCompleted': 1,
      'Ship.CallAgent': 1,
      'Ship.MarkCompleted': 1,
      MarkProcessed: 1,
      Processed: 1,
    });
    expect(savings.map((saving) => [saving.states, saving.transitionsSaved])).toEqual([
      [['MarkProcessed', 'Pay.MarkCompleted', 'Ship.MarkCompleted'], 3],
    ]);
  });

  it('finds nothing to save in a compact order (one CallAgent per step and three fixed)', () => {
    expect(
      transitionSavings({
        LoadStateRecord: 1,
        CheckLock: 1,
        'Pay.CallAgent': 1,
        'Ship.CallAgent': 1,
        Processed: 1,
      }),
    ).toEqual([]);
  });

  it('prices the scheduled functions per month at their rate, reads at the rate of the window', () => {
    const { items, unmeasuredDurations } = monthlyFixedCost(
      fixedShare(usage(), scope),
      scope,
      3_600,
      US_EAST_1_PRICES,
    );
    const byService = costByService(items);
    const invocations = (730 * 3_600) / 60;
    // Each invocation at the mean billed duration: 60 s at 0.5 GB.
    expect(byService.Lambda).toBeCloseTo(invocations * (0.2e-6 + 30 * 0.0000133334), 9);
    expect(byService.DynamoDB).toBeCloseTo(4 * 730 * 0.125e-6, 12);
    expect(unmeasuredDurations).toEqual([]);
  });
});
