import { TableWriteSignal } from '../../../../lib/local-runtime/dynamodb/table-write-signal';

describe('TableWriteSignal', () => {
  it("tells a write to its tables' listeners only, once each, and every listener when the tables are unknown", () => {
    const signal = new TableWriteSignal();
    const told: string[] = [];
    signal.subscribe('Orders', () => told.push('orders 1'));
    signal.subscribe('Orders', () => told.push('orders 2'));
    signal.subscribe('Outbox', () => told.push('outbox'));

    signal.notify(['Orders']);
    expect(told.splice(0)).toEqual(['orders 1', 'orders 2']);
    signal.notify(['Outbox', 'Orders', 'Outbox']);
    expect(told.splice(0).sort()).toEqual(['orders 1', 'orders 2', 'outbox']);
    signal.notify(['Ledger']);
    expect(told.splice(0)).toEqual([]);
    signal.notify(undefined);
    expect(told.splice(0).sort()).toEqual(['orders 1', 'orders 2', 'outbox']);
  });

  it('stops telling a listener that unsubscribed', () => {
    const signal = new TableWriteSignal();
    const told: string[] = [];
    const unsubscribe = signal.subscribe('Orders', () => told.push('gone'));
    signal.subscribe('Orders', () => told.push('stays'));

    unsubscribe();
    signal.notify(['Orders']);
    signal.notify(undefined);
    expect(told).toEqual(['stays', 'stays']);
  });
});
