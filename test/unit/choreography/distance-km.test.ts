/** The one distance formula the Drone Scheduler and ingestion's door both judge range with. */
import { distanceKm } from '../../../lambdas/choreography/domain/distance-km';
import { CENTRE, FAR, NEAR } from './events';

describe('distanceKm (haversine)', () => {
  it('measures known distances', () => {
    expect(distanceKm(CENTRE, CENTRE)).toBe(0);
    expect(distanceKm(CENTRE, NEAR)).toBeCloseTo(1.11, 2);
    // Berlin to Hamburg, great circle: about 255 km.
    expect(distanceKm(CENTRE, FAR)).toBeGreaterThan(250);
    expect(distanceKm(CENTRE, FAR)).toBeLessThan(260);
    // A quarter of the equator.
    expect(distanceKm({ lat: 0, lon: 0 }, { lat: 0, lon: 90 })).toBeCloseTo(10_007.5, 0);
  });

  it('is symmetric and survives antipodes', () => {
    expect(distanceKm(NEAR, FAR)).toBeCloseTo(distanceKm(FAR, NEAR), 9);
    expect(distanceKm({ lat: 0, lon: 0 }, { lat: 0, lon: 180 })).toBeCloseTo(Math.PI * 6371.0088, 3);
  });
});
