import {
  claimedRecord,
  newOrderRecord,
  stateRecordItem,
} from '../../../../lambdas/scheduler-agent-supervisor/composition/state-records';
import { ProcessState, StateAttr } from '../../../../lambdas/scheduler-agent-supervisor/contracts';
import { orderFingerprint } from '../../../../lambdas/scheduler-agent-supervisor/domain/order';
import {
  type ClaimTimings,
  planAttempt,
} from '../../../../lambdas/scheduler-agent-supervisor/domain/starter';
import { instanceIdFor } from '../../../../lambdas/scheduler-agent-supervisor/domain/state-record';

const NOW = 1_900_000_000_000;
const timings: ClaimTimings = {
  stepTimeoutSeconds: 120,
  stepDeadlineSlackSeconds: 30,
  startGraceSeconds: 60,
};
const order = {
  orderId: 'order-1',
  customerId: 'customer-1',
  items: [{ sku: 'SKU-1', quantity: 2 }],
  totalCents: 1000,
  currency: 'EUR',
};
const settings = { timings, dueShardCount: 4, retryBudget: 12, workflowVersion: 1 };

describe('the state records the tooling seeds', () => {
  it("a new order's record is submission's: Pending, unclaimed, with the order's fingerprint", () => {
    const record = newOrderRecord(order, NOW, settings);
    expect(record).toMatchObject({
      orderId: 'order-1',
      processState: ProcessState.Pending,
      attempt: 0,
      orderFingerprint: orderFingerprint(order),
    });
    expect(record.lockedBy).toBeUndefined();
  });

  it("a claimed record carries the starter's own plan, CompleteBy and lock for attempt 1", () => {
    const record = newOrderRecord(order, NOW - 1_000, settings);
    const claimed = claimedRecord(record, NOW, timings);
    const { plan, completeBy } = planAttempt(record, NOW, timings);
    expect(claimed).toMatchObject({
      processState: ProcessState.Processing,
      attempt: 1,
      lockedBy: instanceIdFor('order-1', 1),
      plan,
      completeBy,
    });
  });

  it('refuses to claim what a starter would not (a record already Processing)', () => {
    const claimed = claimedRecord(newOrderRecord(order, NOW - 1_000, settings), NOW, timings);
    expect(() => claimedRecord(claimed, NOW + 1_000, timings)).toThrow(/would not claim order-1/);
  });

  it('the item is the one the state store writes (its key and state attributes)', () => {
    const item = stateRecordItem(newOrderRecord(order, NOW, settings));
    expect(item[StateAttr.OrderId]).toBe('order-1');
    expect(item[StateAttr.ProcessState]).toBe(ProcessState.Pending);
  });
});
