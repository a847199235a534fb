import {
  cumulativeShare,
  NOT_RECOVERY_KINDS,
  RECOVERY_CAMPAIGNS,
  RECOVERY_KINDS,
  unrecoveredOrders,
} from '../../../lib/bench/figures/recovery';
import type { OrderOutcome } from '../../../lib/chaos/orders/campaign-snapshot';
import { FAULT_KINDS, FaultKind } from '../../../lib/chaos/orders/faults';
import { planCampaign } from '../../../lib/chaos/orders/plan';

/** Three accepted orders: `a` became terminal, `b` and `c` never did. */
const ORDERS: readonly OrderOutcome[] = [
  { orderId: 'a', mustFail: false, acceptedAt: 1, terminalAt: 5 },
  { orderId: 'b', mustFail: false, acceptedAt: 1 },
  { orderId: 'c', mustFail: false, acceptedAt: 1 },
];

describe('the recovery figure', () => {
  it('names the orders a fault hit that never became terminal, and only those', () => {
    const faults = [
      { kind: FaultKind.RemoteTransient, at: 2, orderIds: ['a', 'b'] },
      { kind: FaultKind.ClockSkew, at: 0, orderIds: [] },
    ];
    expect(unrecoveredOrders(faults, ORDERS)).toEqual(['b']);
  });

  it('draws the distribution as the share of orders terminal within each latency', () => {
    expect(cumulativeShare([4, 1, 2, 3])).toEqual([
      { x: 1, y: 0.25 },
      { x: 2, y: 0.5 },
      { x: 3, y: 0.75 },
      { x: 4, y: 1 },
    ]);
    expect(cumulativeShare([])).toEqual([]);
  });

  it.each(Object.entries(RECOVERY_CAMPAIGNS))(
    'plans its %s campaign with faults on its orders',
    (_name, campaign) => {
      const plan = planCampaign({
        orders: campaign.orders,
        seed: campaign.seed,
        rates: campaign.rates,
        minOrdersPerKind: campaign.minOrdersPerKind,
        enabledKinds: campaign.kinds,
      });
      expect(plan.orders).toHaveLength(campaign.orders);
      expect(
        plan.orders.some((order) => order.attemptFault !== undefined || order.duplicate !== undefined),
      ).toBe(true);
    },
  );

  it('measures every kind it does not leave out, and no kind twice', () => {
    expect([...RECOVERY_KINDS, ...NOT_RECOVERY_KINDS].sort()).toEqual([...FAULT_KINDS].sort());
    expect(RECOVERY_KINDS).not.toContain(FaultKind.RuntimeRestart);
  });
});
