/**
 * What each verification run checks (lib/verify/verification.ts): `npm test`'s quick run, the full
 * run and a run at given bounds list different orders models, and the reports read their names and
 * bounds from them. Only the suites' composition is tested here: the models' checks are spin's, in
 * test/unit/verify/orders and test/unit/verify/deliveries.
 */
import { ordersSuite, WIDER_BOUNDS } from '../../../lib/verify';

const summary = (suite: ReturnType<typeof ordersSuite>) =>
  suite.models.map((model) => ({
    name: model.name,
    liveness: model.liveness ?? [],
    steps: model.bounds.steps,
    search: model.search,
  }));

describe('the verification suites', () => {
  it('quick: safety at the default bounds, liveness within the smaller ones', () => {
    expect(summary(ordersSuite({ quick: true }))).toEqual([
      { name: 'orders', liveness: [], steps: 2, search: undefined },
      { name: 'orders-liveness', liveness: ['settles'], steps: 2, search: undefined },
    ]);
  });

  it('full: safety and liveness at the default bounds, then safety within each wider bound', () => {
    const models = summary(ordersSuite());
    expect(models[0]).toEqual({ name: 'orders', liveness: ['settles'], steps: 2, search: undefined });
    expect(models.slice(1).map((model) => model.name)).toEqual(WIDER_BOUNDS.map((wider) => wider.name));
    for (const model of models.slice(1)) {
      expect(model.liveness).toEqual([]);
      expect(model.search?.hashBits).toBeGreaterThan(24);
    }
    expect(ordersSuite().models.find((model) => model.name === 'orders-3-steps')?.bounds.steps).toBe(3);
  });

  it('at given bounds: that one model, safety and liveness', () => {
    const suite = ordersSuite({ bounds: { maxFailures: 2 } });
    expect(summary(suite)).toEqual([{ name: 'orders', liveness: ['settles'], steps: 2, search: undefined }]);
    expect(suite.models[0]?.bounds.maxFailures).toBe(2);
  });
});
