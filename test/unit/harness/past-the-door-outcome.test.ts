/**
 * A delivery accepted past the door is tracked by the campaign only when it was stored: an id
 * another requester holds, or a differing resubmission, is refused as the API would refuse it.
 */
import { pastTheDoorOutcome } from '../../../lib/harness/past-the-door-outcome';

describe('pastTheDoorOutcome', () => {
  const record = {} as never;

  it('answers a stored delivery as the API would (202 new, 200 identical)', () => {
    expect(pastTheDoorOutcome({ kind: 'accepted', record }, 'd-1')).toEqual({
      kind: 'accepted',
      status: 202,
    });
    expect(pastTheDoorOutcome({ kind: 'identical', record }, 'd-1')).toEqual({
      kind: 'accepted',
      status: 200,
    });
  });

  it("refuses a differing resubmission and another requester's id, 409", () => {
    expect(pastTheDoorOutcome({ kind: 'conflict', fields: ['ownerId'] }, 'd-1')).toEqual({
      kind: 'refused',
      status: 409,
      body: 'differs in ownerId',
    });
    const unavailable = pastTheDoorOutcome({ kind: 'unavailable' }, 'd-1');
    expect(unavailable).toMatchObject({ kind: 'refused', status: 409 });
    // The body submit-delivery answers (contracts deliveryIdUnavailable), naming nothing of the holder's delivery.
    expect(JSON.parse((unavailable as { body: string }).body)).toEqual({
      message: "Delivery id 'd-1' is not available; choose another deliveryId",
      errors: [{ path: 'deliveryId', message: 'is not available' }],
    });
  });
});
