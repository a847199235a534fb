import { parseEvent } from '../../../lambdas/choreography/contracts';
import { flightPlan } from '../../../lambdas/fakes/domain/drone-flight';
import { envelope, T0 } from '../choreography/events';

const settings = { pickupMillis: 2_000, flightMillis: 5_000, failingDeliveryPrefix: 'fail-' };
const scheduled = (deliveryId: string) =>
  envelope(
    'DeliveryScheduled',
    { droneId: 'drone-7', window: { start: T0.toISOString(), end: T0.toISOString() } },
    { producer: 'delivery', deliveryId },
  );

describe('flightPlan (fake drone fleet)', () => {
  it('picks up after pickupMillis, then delivers flightMillis later, as FlightProgress 1 and 2', () => {
    const legs = flightPlan(scheduled('d-1'), settings, T0);
    expect(legs.map(({ afterMillis, stage }) => ({ afterMillis, stage }))).toEqual([
      { afterMillis: 2_000, stage: 'PICKED_UP' },
      { afterMillis: 5_000, stage: 'DELIVERED' },
    ]);
    expect(legs.map((leg) => leg.entry)).toEqual([
      {
        id: 'drone-fleet:d-1:1',
        destination: 'delivery-queue',
        message: {
          type: 'FlightProgress',
          schemaVersion: 1,
          eventId: 'drone-fleet:d-1:1',
          deliveryId: 'd-1',
          correlationId: 'corr-d-1',
          sequence: 1,
          producer: 'drone-fleet',
          occurredAt: '2030-01-01T10:00:02.000Z',
          data: { droneId: 'drone-7', stage: 'PICKED_UP' },
        },
      },
      expect.objectContaining({
        id: 'drone-fleet:d-1:2',
        message: expect.objectContaining({
          sequence: 2,
          occurredAt: '2030-01-01T10:00:07.000Z',
          data: { droneId: 'drone-7', stage: 'DELIVERED' },
        }),
      }),
    ]);
  });

  it('fails in flight with FLIGHT_FAILED when the delivery id starts with the failing prefix', () => {
    const [, last] = flightPlan(scheduled('fail-2'), settings, T0);
    expect(last?.entry.message.data).toEqual({
      droneId: 'drone-7',
      stage: 'FAILED',
      reasonCode: 'FLIGHT_FAILED',
    });
  });

  it('writes reports the Delivery service accepts', () => {
    for (const leg of flightPlan(scheduled('fail-3'), settings, T0)) {
      expect(parseEvent(JSON.stringify(leg.entry.message), ['FlightProgress']).ok).toBe(true);
    }
  });

  it('is the same plan for the same schedule (a redelivery sends the same event ids)', () => {
    const ids = (startedAt: Date) =>
      flightPlan(scheduled('d-4'), settings, startedAt).map((leg) => leg.entry.id);
    expect(ids(T0)).toEqual(ids(new Date(T0.getTime() + 60_000)));
  });
});
