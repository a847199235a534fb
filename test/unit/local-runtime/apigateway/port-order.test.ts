/**
 * Which port each REST API takes (lib/local-runtime/apigateway/port-order.ts): the assembly's order by
 * default, the named stacks first when an order is given, a stable port per named stack, and a bad
 * order refused with an error naming it.
 */
import { apiPortOffsets, inApiPortOrder } from '../../../../lib/local-runtime/apigateway/port-order';

describe('REST API port offsets', () => {
  it("keeps the assembly's order without one", () => {
    expect(apiPortOffsets(['Deliveries', 'Orders'])).toEqual([0, 1]);
    expect(apiPortOffsets(['A', 'A', 'B'])).toEqual([0, 1, 2]);
    expect(apiPortOffsets([])).toEqual([]);
  });

  it('puts the named stacks first, in the order named, and the others after them in assembly order', () => {
    expect(apiPortOffsets(['Deliveries', 'Orders'], ['Orders', 'Deliveries'])).toEqual([1, 0]);
    expect(apiPortOffsets(['Deliveries', 'Orders'], ['Orders'])).toEqual([1, 0]);
    expect(apiPortOffsets(['C', 'B', 'Orders', 'A'], ['Orders'])).toEqual([1, 2, 0, 3]);
  });

  it('gives a named stack one port per API, one after the other', () => {
    expect(apiPortOffsets(['B', 'A', 'A'], ['A', 'B'])).toEqual([2, 0, 1]);
  });

  it("leaves a named stack's port free when the assembly lacks it, so the next keep theirs", () => {
    expect(apiPortOffsets(['Deliveries'], ['Orders', 'Deliveries'])).toEqual([1]);
    expect(apiPortOffsets(['Orders', 'Other'], ['Orders', 'Gone', 'Deliveries'])).toEqual([0, 3]);
  });

  it("keeps the assembly's order when the order names none of its stacks (another app's assembly)", () => {
    expect(apiPortOffsets(['Fixture', 'Other'], ['Orders', 'Deliveries'])).toEqual([0, 1]);
  });

  it('refuses a stack named twice or an empty name, naming it', () => {
    expect(() => apiPortOffsets(['A'], ['A', 'B', 'A'])).toThrow('apiPortOrder names the stack A twice');
    expect(() => apiPortOffsets(['A'], ['A', ' '])).toThrow('apiPortOrder names stacks; got " "');
    expect(() => inApiPortOrder(['A'], ['A', 'A'])).toThrow('apiPortOrder names the stack A twice');
  });
});

describe('stacks in API port order', () => {
  it('lists the named stacks the assembly has first, then the others as given', () => {
    expect(inApiPortOrder(['Deliveries', 'Orders'])).toEqual(['Deliveries', 'Orders']);
    expect(inApiPortOrder(['Deliveries', 'Orders'], ['Orders', 'Deliveries'])).toEqual([
      'Orders',
      'Deliveries',
    ]);
    expect(inApiPortOrder(['C', 'Deliveries', 'Orders'], ['Orders', 'Gone'])).toEqual([
      'Orders',
      'C',
      'Deliveries',
    ]);
  });
});
