/**
 * Who owns a record of the client API, in both wings: the decision behind GET 404-as-unknown and
 * POST 409-naming-nothing for another caller's order or delivery.
 */
import { ownedBy } from '../../../lambdas/shared/owned-by';

describe('ownedBy', () => {
  it('is true for the submitter only', () => {
    expect(ownedBy('pharmacy', 'pharmacy')).toBe(true);
    expect(ownedBy('pharmacy', 'bakery')).toBe(false);
  });

  it('gives a record from before clients or requesters existed to nobody', () => {
    expect(ownedBy(undefined, 'pharmacy')).toBe(false);
  });
});
