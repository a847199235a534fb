import {
  callCounterKey,
  decideAfterEffect,
  decideBeforeEffect,
  effectKey,
  scenarioFlags,
  serviceForPath,
} from '../../../lambdas/fakes/domain/remote-scenarios';
import { RemoteOperationRequestSchema } from '../../../lambdas/scheduler-agent-supervisor/contracts';

const items = (...skus: string[]) => skus.map((sku) => ({ sku, quantity: 1 }));
const none = { permanentFailure: false, flaky: false, stallOnce: false };

describe('serviceForPath', () => {
  it('routes each operation path to its service and nothing else', () => {
    expect(serviceForPath('/inventory/reservations')).toBe('inventory');
    expect(serviceForPath('/payments/charges')).toBe('payment');
    expect(serviceForPath('/shipping/shipments')).toBe('shipping');
    expect(serviceForPath('/payments/charges/')).toBeUndefined();
    expect(serviceForPath('/')).toBeUndefined();
  });
});

describe('scenarioFlags', () => {
  it('plays PERM-FAIL and STALL-ONCE on the payment service only', () => {
    expect(scenarioFlags('payment', items('PERM-FAIL', 'STALL-ONCE'))).toEqual({
      permanentFailure: true,
      flaky: false,
      stallOnce: true,
    });
    expect(scenarioFlags('inventory', items('PERM-FAIL', 'STALL-ONCE'))).toEqual(none);
    expect(scenarioFlags('shipping', items('PERM-FAIL', 'STALL-ONCE'))).toEqual(none);
  });

  it('plays FLAKY on every service', () => {
    for (const service of ['inventory', 'payment', 'shipping'] as const) {
      expect(scenarioFlags(service, items('BOOK', 'FLAKY')).flaky).toBe(true);
    }
  });

  it('ignores ordinary SKUs', () => {
    expect(scenarioFlags('payment', items('BOOK', 'perm-fail'))).toEqual(none);
  });
});

describe('decideBeforeEffect', () => {
  it('refuses PERM-FAIL with 422 on every call', () => {
    expect(decideBeforeEffect({ ...none, permanentFailure: true }, 0)).toMatchObject({
      kind: 'refuse',
      status: 422,
    });
  });

  it('fails the first two FLAKY calls with 503 and lets the third through', () => {
    const flaky = { ...none, flaky: true };
    expect(decideBeforeEffect(flaky, 1)).toMatchObject({ kind: 'unavailable', status: 503 });
    expect(decideBeforeEffect(flaky, 2)).toMatchObject({ kind: 'unavailable', status: 503 });
    expect(decideBeforeEffect(flaky, 3)).toEqual({ kind: 'proceed' });
  });

  it('lets ordinary requests through', () => {
    expect(decideBeforeEffect(none, 0)).toEqual({ kind: 'proceed' });
  });
});

describe('decideAfterEffect', () => {
  it('answers 201 for a new effect and 200 for a replay', () => {
    expect(decideAfterEffect(none, true)).toEqual({ kind: 'created', status: 201 });
    expect(decideAfterEffect(none, false)).toEqual({ kind: 'replayed', status: 200 });
  });

  it('stalls only the call that recorded a STALL-ONCE effect; later calls replay it', () => {
    const stall = { ...none, stallOnce: true };
    expect(decideAfterEffect(stall, true)).toEqual({ kind: 'stall-then-fail', status: 504 });
    expect(decideAfterEffect(stall, false)).toEqual({ kind: 'replayed', status: 200 });
  });
});

describe('ledger keys', () => {
  it('separate effects and call counters per service and key', () => {
    expect(effectKey('payment', 'o-1:ChargePayment')).toBe('payment#o-1:ChargePayment');
    expect(callCounterKey('payment', 'o-1:ChargePayment')).toBe('calls#payment#o-1:ChargePayment');
  });
});

describe('RemoteOperationRequestSchema', () => {
  const valid = { orderId: 'o-1', customerId: 'c', items: items('A'), totalCents: 10, currency: 'EUR' };

  it('accepts what the agent sends', () => {
    expect(RemoteOperationRequestSchema.safeParse(valid).success).toBe(true);
  });

  it('rejects unknown fields, empty items and a lower-case currency', () => {
    expect(RemoteOperationRequestSchema.safeParse({ ...valid, extra: 1 }).success).toBe(false);
    expect(RemoteOperationRequestSchema.safeParse({ ...valid, items: [] }).success).toBe(false);
    expect(RemoteOperationRequestSchema.safeParse({ ...valid, currency: 'eur' }).success).toBe(false);
  });
});
