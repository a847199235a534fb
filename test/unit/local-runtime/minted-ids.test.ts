/**
 * The ids the runtime mints: random on an unseeded clock; on a seeded one the seed's, the same
 * sequence for the same seed, going on (not starting over) when the same clock starts the runtime
 * again, starting over with a new clock.
 */
import { VirtualClock, WallClock } from '../../../lib/local-runtime/clock';
import { mintBytes, mintIdsFor, mintUuid } from '../../../lib/local-runtime/minted-ids';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('minted ids', () => {
  afterEach(() => mintIdsFor(new WallClock()));

  it('are random without a seed', () => {
    mintIdsFor(new VirtualClock());
    expect(mintUuid()).not.toBe(mintUuid());
    expect(mintUuid()).toMatch(UUID);
  });

  it('repeat for a seed, go on for the same clock, and start over for a new one', () => {
    const clock = new VirtualClock({ seed: 9 });
    mintIdsFor(clock);
    const first = [mintUuid(), mintBytes(12).toString('base64url')];
    expect(first[0]).toMatch(UUID);
    mintIdsFor(clock);
    const next = mintUuid();
    expect(next).not.toBe(first[0]);
    mintIdsFor(new VirtualClock({ seed: 9 }));
    expect([mintUuid(), mintBytes(12).toString('base64url')]).toEqual(first);
    mintIdsFor(new VirtualClock({ seed: 10 }));
    expect(mintUuid()).not.toBe(first[0]);
  });
});
