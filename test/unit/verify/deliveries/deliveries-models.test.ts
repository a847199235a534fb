/**
 * The choreography's models (issue 25): the booking model and the Delivery service's state model,
 * generated from the code, pass exhaustively within their bounds (safety, and liveness where a model
 * states it); each broken variant (one guard taken out of the code's rules) yields a counterexample
 * found breadth first, printed as the actors' steps; and the booking model follows the code (a
 * changed rule changes the model; every status and event the code decides with is in it). Needs spin
 * and gcc: without them runSpin throws (SpinUnavailableError) and the test fails, it never skips.
 */
import { AssignmentStatus, reactToDroneEvent } from '../../../../lambdas/choreography/protocol';
import {
  BOOKING_MESSAGES,
  BOOKING_RULES,
  bookingModel,
  bookingTable,
  DEFAULT_BOOKING_BOUNDS,
  DUPLICATES_BOOKING_BOUNDS,
  deliveriesBrokenVariants,
  deliveriesModels,
} from '../../../../lib/verify/deliveries';
import { runSpin } from '../../../../lib/verify/spin';
import { expectHolds } from './expect-holds';

jest.setTimeout(120_000);

/** The property each variant's guard protects: its trail must end by naming it. */
const VIOLATED: Readonly<Record<string, RegExp>> = {
  'delivery-without-is-newer': /^violated: an older reply overwrote a newer one/,
  'delivery-without-is-final': /^violated: a terminal status changed/,
  'delivery-without-item-version':
    /^violated: (a terminal status changed|an older reply overwrote a newer one)/,
  'booking-without-drone-version': /^violated: drone \d is double-booked/,
  'booking-without-assignment-version': /^violated: delivery d\d holds two bookings/,
};

describe('deliveries models', () => {
  it.each(deliveriesModels().map((model) => [model.name, model] as const))(
    '%s passes, exhaustively',
    (_name, model) => {
      console.log(`${model.name}:\n${model.properties.map((property) => `  - ${property}`).join('\n')}`);
      expect(expectHolds(model, { kind: 'safety' }).states).toBeGreaterThan(1000);
      for (const ltl of model.liveness ?? []) expectHolds(model, { kind: 'liveness', ltl });
    },
  );

  it.each(deliveriesBrokenVariants().map((variant) => [variant.name, variant] as const))(
    'the broken variant %s is caught with a trail',
    (_name, variant) => {
      const result = runSpin(variant.model, { kind: 'safety' }, { breadthFirst: true });
      const steps = result.trail?.steps ?? [];
      console.log(
        `${variant.name} (${variant.description}): ${result.trail?.violation}\n${steps.map((step, index) => `  ${index + 1}. ${step}`).join('\n')}`,
      );
      expect(result.errors).toBeGreaterThan(0);
      expect(steps.length).toBeGreaterThan(0);
      expect(Object.keys(VIOLATED)).toContain(variant.name);
      expect(steps.at(-1)).toMatch(VIOLATED[variant.name] as RegExp);
    },
  );
});

describe('the booking model follows the code', () => {
  const { deliveries, drones } = DEFAULT_BOOKING_BOUNDS;

  it("names every assignment status and every message of the code's table", () => {
    const { source } = bookingModel(DEFAULT_BOOKING_BOUNDS);
    for (const status of Object.values(AssignmentStatus)) expect(source).toContain(`A_${status}`);
    for (const message of BOOKING_MESSAGES) expect(source).toContain(`M_${message}`);
    const emitted = new Set(
      bookingTable(BOOKING_RULES, deliveries, drones).flatMap((row) =>
        row.outcome.kind === 'change' ? [row.outcome.emits] : [],
      ),
    );
    expect([...emitted].sort()).toEqual(['DroneReleased', 'DroneScheduled', 'DroneUnavailable']);
    for (const type of emitted) expect(source).toContain(`E_${type}`);
  });

  it('a changed rule changes the model', () => {
    const real = bookingModel(DEFAULT_BOOKING_BOUNDS).source;
    // A rule that never books: every request answered "ignored".
    const lazy = bookingModel(DEFAULT_BOOKING_BOUNDS, {
      ...BOOKING_RULES,
      react: (input) =>
        input.event.type === 'DeliveryRequested'
          ? { kind: 'ignore', reason: 'lazy' }
          : reactToDroneEvent(input),
    }).source;
    expect(lazy).not.toEqual(real);
    expect(real).toMatch(/m == M_request && ra == A_ABSENT[^\n]*kind = 1; na = A_SCHEDULED/);
    expect(lazy).not.toMatch(/m == M_request && ra == A_ABSENT[^\n]*kind = 1; na = A_SCHEDULED/);
  });

  it("reads the code's write conditions, and refuses one it does not know", () => {
    expect(bookingModel(DEFAULT_BOOKING_BOUNDS).source).toContain('droneVer[wd - 1] == rv[wd - 1]');
    expect(() =>
      bookingModel(DEFAULT_BOOKING_BOUNDS, {
        ...BOOKING_RULES,
        itemCondition: () => ({
          ConditionExpression: '#version >= :v',
          ExpressionAttributeNames: { '#version': 'version' },
        }),
      }),
    ).toThrow(/two condition shapes/);
  });
});

describe('the booking model with duplicates', () => {
  it('holds without the marker too: a duplicate request finds its own booking (no marker variant can be caught)', () => {
    const model = bookingModel(
      DUPLICATES_BOOKING_BOUNDS,
      { ...BOOKING_RULES, markerCondition: undefined },
      'booking-without-marker',
    );
    expectHolds(model, { kind: 'safety' });
  });
});
