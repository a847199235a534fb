import { operationForPath } from '../../../lambdas/fakes/contracts';
import {
  callCounterKey,
  decideAfterEffect,
  decideAfterUndo,
  decideBeforeEffect,
  decideBeforeUndo,
  effectKey,
  scenarioFlags,
} from '../../../lambdas/fakes/domain/remote-scenarios';
import {
  RemoteCompensationRequestSchema,
  RemoteOperationRequestSchema,
} from '../../../lambdas/scheduler-agent-supervisor/contracts';

const items = (...skus: string[]) => skus.map((sku) => ({ sku, quantity: 1 }));
const none = {
  permanentFailure: false,
  flaky: false,
  stallOnce: false,
  undoFlaky: false,
  undoFail: false,
  slow: false,
  outage: false,
};
const SERVICES = ['inventory', 'payment', 'shipping'] as const;

describe('operationForPath', () => {
  it("routes each step's operation path to its service", () => {
    expect(operationForPath('/inventory/reservations')).toEqual({
      kind: 'perform',
      service: 'inventory',
      step: 'ReserveInventory',
    });
    expect(operationForPath('/payments/charges')).toMatchObject({ kind: 'perform', service: 'payment' });
    expect(operationForPath('/shipping/shipments')).toMatchObject({ kind: 'perform', service: 'shipping' });
  });

  it("routes each compensation path to the step's service, naming the compensation", () => {
    expect(operationForPath('/inventory/releases')).toEqual({
      kind: 'compensate',
      service: 'inventory',
      step: 'ReserveInventory',
      compensation: 'ReleaseInventory',
    });
    expect(operationForPath('/payments/refunds')).toEqual({
      kind: 'compensate',
      service: 'payment',
      step: 'ChargePayment',
      compensation: 'RefundPayment',
    });
    expect(operationForPath('/shipping/cancellations')).toEqual({
      kind: 'compensate',
      service: 'shipping',
      step: 'ScheduleShipping',
      compensation: 'CancelShipment',
    });
  });

  it('serves nothing else', () => {
    expect(operationForPath('/payments/charges/')).toBeUndefined();
    expect(operationForPath('/refunds')).toBeUndefined();
    expect(operationForPath('/')).toBeUndefined();
  });
});

describe('scenarioFlags', () => {
  it('plays PERM-FAIL and STALL-ONCE on the payment service only', () => {
    expect(scenarioFlags('payment', ['PERM-FAIL', 'STALL-ONCE'])).toEqual({
      ...none,
      permanentFailure: true,
      stallOnce: true,
    });
    expect(scenarioFlags('inventory', ['PERM-FAIL', 'STALL-ONCE'])).toEqual(none);
    expect(scenarioFlags('shipping', ['PERM-FAIL', 'STALL-ONCE'])).toEqual(none);
  });

  it('plays PERM-FAIL-INVENTORY on inventory only and PERM-FAIL-SHIPPING on shipping only', () => {
    const refusing = (sku: string) =>
      SERVICES.filter((service) => scenarioFlags(service, [sku]).permanentFailure);
    expect(refusing('PERM-FAIL-INVENTORY')).toEqual(['inventory']);
    expect(refusing('PERM-FAIL-SHIPPING')).toEqual(['shipping']);
    expect(refusing('PERM-FAIL')).toEqual(['payment']);
  });

  it('plays FLAKY, UNDO-FLAKY, UNDO-FAIL and SLOW on every service', () => {
    for (const service of SERVICES) {
      expect(scenarioFlags(service, ['BOOK', 'FLAKY', 'UNDO-FLAKY', 'UNDO-FAIL', 'SLOW'])).toEqual({
        ...none,
        flaky: true,
        undoFlaky: true,
        undoFail: true,
        slow: true,
      });
    }
  });

  it('plays OUTAGE on the payment service only', () => {
    expect(SERVICES.filter((service) => scenarioFlags(service, ['OUTAGE']).outage)).toEqual(['payment']);
  });

  it('ignores ordinary SKUs and other spellings', () => {
    expect(scenarioFlags('payment', ['BOOK', 'perm-fail', 'UNDO-FAILED', 'SLOWLY'])).toEqual(none);
    expect(scenarioFlags('payment', [])).toEqual(none);
  });
});

describe('decideBeforeEffect', () => {
  it('refuses a permanent failure with 422 on every call, naming the service and the SKU', () => {
    expect(decideBeforeEffect('payment', { ...none, permanentFailure: true }, 0)).toEqual({
      kind: 'refuse',
      status: 422,
      message: 'payment refused for SKU PERM-FAIL',
    });
    expect(decideBeforeEffect('inventory', { ...none, permanentFailure: true }, 7)).toEqual({
      kind: 'refuse',
      status: 422,
      message: 'inventory refused for SKU PERM-FAIL-INVENTORY',
    });
    expect(decideBeforeEffect('shipping', { ...none, permanentFailure: true }, 0)).toMatchObject({
      message: 'shipping refused for SKU PERM-FAIL-SHIPPING',
    });
  });

  it('fails the first two FLAKY calls with 503 and lets the third through', () => {
    const flaky = { ...none, flaky: true };
    expect(decideBeforeEffect('payment', flaky, 1)).toMatchObject({ kind: 'unavailable', status: 503 });
    expect(decideBeforeEffect('payment', flaky, 2)).toMatchObject({ kind: 'unavailable', status: 503 });
    expect(decideBeforeEffect('payment', flaky, 3)).toEqual({ kind: 'proceed' });
  });

  it('fails every OUTAGE call with 503 until the outage is ended for the key, then lets it through', () => {
    const outage = { ...none, outage: true };
    for (const call of [1, 2, 50]) {
      expect(decideBeforeEffect('payment', outage, call)).toMatchObject({ kind: 'unavailable', status: 503 });
      expect(decideBeforeEffect('payment', outage, call, false)).toMatchObject({ status: 503 });
    }
    expect(decideBeforeEffect('payment', outage, 51, true)).toEqual({ kind: 'proceed' });
    // Ending an outage that is not being played changes nothing.
    expect(decideBeforeEffect('payment', { ...none, permanentFailure: true }, 0, true)).toMatchObject({
      status: 422,
    });
  });

  it('plays no compensation scenario on an original operation', () => {
    const undoing = { ...none, undoFlaky: true, undoFail: true };
    expect(decideBeforeEffect('payment', undoing, 1)).toEqual({ kind: 'proceed' });
  });

  it('lets ordinary requests through', () => {
    expect(decideBeforeEffect('payment', none, 0)).toEqual({ kind: 'proceed' });
  });
});

describe('decideBeforeUndo', () => {
  it('refuses every UNDO-FAIL compensation with 422', () => {
    for (const call of [1, 2, 3, 10]) {
      expect(decideBeforeUndo('shipping', { ...none, undoFail: true }, call)).toEqual({
        kind: 'refuse',
        status: 422,
        message: 'shipping refuses every compensation for SKU UNDO-FAIL',
      });
    }
  });

  it('fails the first two UNDO-FLAKY calls of a compensation key with 503, then lets it through', () => {
    const flaky = { ...none, undoFlaky: true };
    expect(decideBeforeUndo('payment', flaky, 1)).toMatchObject({ kind: 'unavailable', status: 503 });
    expect(decideBeforeUndo('payment', flaky, 2)).toMatchObject({ kind: 'unavailable', status: 503 });
    expect(decideBeforeUndo('payment', flaky, 3)).toEqual({ kind: 'proceed' });
  });

  it("plays none of the original operation's scenarios", () => {
    const original = { ...none, permanentFailure: true, flaky: true, stallOnce: true };
    expect(decideBeforeUndo('payment', original, 1)).toEqual({ kind: 'proceed' });
  });
});

describe('decideAfterUndo', () => {
  it('answers 201 for the first answer of a compensation key and 200 for its replays', () => {
    expect(decideAfterUndo(true)).toEqual({ kind: 'created', status: 201 });
    expect(decideAfterUndo(false)).toEqual({ kind: 'replayed', status: 200 });
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

describe('RemoteCompensationRequestSchema', () => {
  it('accepts what the agent sends for a compensation', () => {
    expect(
      RemoteCompensationRequestSchema.safeParse({ orderId: 'o-1', undoes: 'o-1:ChargePayment' }).success,
    ).toBe(true);
  });

  it('rejects order data, a missing undoes and a key with spaces', () => {
    const valid = { orderId: 'o-1', undoes: 'o-1:ChargePayment' };
    expect(RemoteCompensationRequestSchema.safeParse({ ...valid, items: items('A') }).success).toBe(false);
    expect(RemoteCompensationRequestSchema.safeParse({ orderId: 'o-1' }).success).toBe(false);
    expect(RemoteCompensationRequestSchema.safeParse({ ...valid, undoes: 'o 1' }).success).toBe(false);
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
