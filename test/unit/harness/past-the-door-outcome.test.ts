/**
 * A delivery accepted past the door is tracked by the campaign only when it was stored: an id
 * another requester holds, or a differing resubmission, is refused as the API would refuse it.
 */
import { pastTheDoorOutcome } from '../../../lib/harness/past-the-door-outcome';

describe('pastTheDoorOutcome', () => {
  const record = {} as never;

  it('answers a stored delivery as the API would (202 new, 200 identical)', () => {
    expect(pastTheDoorOutcome({ kind: 'accepted', record })).toEqual({ kind: 'accepted', status: 202 });
    expect(pastTheDoorOutcome({ kind: 'identical', record })).toEqual({ kind: 'accepted', status: 200 });
  });

  it("refuses a differing resubmission and another requester's id, 409", () => {
    expect(pastTheDoorOutcome({ kind: 'conflict', fields: ['ownerId'] })).toEqual({
      kind: 'refused',
      status: 409,
      body: 'differs in ownerId',
    });
    expect(pastTheDoorOutcome({ kind: 'unavailable' })).toMatchObject({ kind: 'refused', status: 409 });
  });
});
