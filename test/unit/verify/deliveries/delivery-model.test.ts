/**
 * The Delivery service's state model (issue 25): generated from reactToDeliveryEvent and the guards
 * it applies, it follows the code (a changed guard changes the decision table and the model; every
 * status, message and lifecycle event the code decides with is in it), refuses by name a rule
 * answer it cannot hold, and its liveness holds within the smaller bounds its search fits in. Its
 * safety check and broken variants run with the other deliveries models (deliveries-models.test.ts).
 * Needs spin and gcc: without them runSpin throws (SpinUnavailableError) and the test fails.
 */
import {
  DELIVERY_STATUSES,
  DeliveryStatus,
  LIFECYCLE_EVENT_TYPES,
} from '../../../../lambdas/choreography/contracts';
import { DELIVERY_GUARDS, type DeliveryState } from '../../../../lambdas/choreography/protocol';
import {
  DEFAULT_DELIVERY_BOUNDS,
  DELIVERY_MESSAGES,
  DELIVERY_RULES,
  type DeliveryTable,
  deliveryModel,
  deliveryTable,
  LIVENESS_DELIVERY_BOUNDS,
} from '../../../../lib/verify/deliveries';
import { expectHolds } from './expect-holds';

jest.setTimeout(120_000);

/** The row of `table` for `message` read in the state `read` names. */
function answer(table: DeliveryTable, message: string, read: string) {
  const row = table.rows.find(
    (candidate) =>
      candidate.message.name === message &&
      `${candidate.read.status}/${candidate.read.package}${candidate.read.drone}${candidate.read.flight}` ===
        read,
  );
  if (!row) throw new Error(`no row for ${message} in ${read}`);
  return row.outcome;
}

describe('the delivery model follows the code', () => {
  const real = deliveryTable(DELIVERY_RULES);

  it("holds the code's answers, and names every status, message and lifecycle event it decides with", () => {
    expect(answer(real, 'PackageReady', 'Correlating/010')).toEqual({
      kind: 'change',
      state: { status: DeliveryStatus.Scheduled, package: 2, drone: 1, flight: 0 },
      emits: ['DeliveryScheduled'],
    });
    expect(answer(real, 'PackageRejected', 'Correlating/200')).toEqual({ kind: 'ignore' });
    expect(answer(real, 'Compensate', 'Delivered/212')).toEqual({ kind: 'ignore' });
    const { source } = deliveryModel(DEFAULT_DELIVERY_BOUNDS);
    for (const status of DELIVERY_STATUSES) expect(source).toContain(`S_${status}`);
    for (const message of DELIVERY_MESSAGES) expect(source).toContain(`M_${message.name}`);
    const emitted = new Set(
      real.rows.flatMap((row) => (row.outcome.kind === 'change' ? row.outcome.emits : [])),
    );
    expect([...emitted].sort()).toEqual(
      LIFECYCLE_EVENT_TYPES.filter((type) => type !== 'DeliveryFailed').sort(),
    );
  });

  it('a changed guard changes the decision table and the model', () => {
    const newerAlways = { ...DELIVERY_RULES, guards: { ...DELIVERY_GUARDS, isNewer: () => true } };
    const neverFinal = { ...DELIVERY_RULES, guards: { ...DELIVERY_GUARDS, isFinal: () => false } };
    expect(answer(deliveryTable(newerAlways), 'PackageRejected', 'Correlating/200')).toEqual({
      kind: 'change',
      state: { status: DeliveryStatus.Correlating, package: 1, drone: 0, flight: 0 },
      emits: [],
    });
    expect(answer(deliveryTable(neverFinal), 'Compensate', 'Delivered/212')).toMatchObject({
      kind: 'change',
      state: { status: DeliveryStatus.Cancelled },
    });
    const source = deliveryModel(DEFAULT_DELIVERY_BOUNDS).source;
    expect(deliveryModel(DEFAULT_DELIVERY_BOUNDS, newerAlways).source).not.toEqual(source);
    expect(deliveryModel(DEFAULT_DELIVERY_BOUNDS, neverFinal).source).not.toEqual(source);
  });

  it('refuses by name a rule answer it cannot hold, a condition it cannot read, a message it does not send', () => {
    const answering = (change: (state: DeliveryState) => DeliveryState) => ({
      ...DELIVERY_RULES,
      react: ((input, guards) => {
        const decision = DELIVERY_RULES.react(input, guards);
        return decision.kind === 'change' ? { ...decision, state: change(decision.state) } : decision;
      }) as typeof DELIVERY_RULES.react,
    });
    // A reply stamped with a sequence no message of the model carries.
    expect(() =>
      deliveryTable(
        answering((state) =>
          state.package
            ? { ...state, package: { ...state.package, sequence: state.package.sequence + 7 } }
            : state,
        ),
      ),
    ).toThrow(/sent no package reply/);
    // A state the projection holds alike but which differs in more (a correlation id that changes with every answer).
    let calls = 0;
    expect(() =>
      deliveryTable(answering((state) => ({ ...state, correlationId: `corr-${calls++}` }))),
    ).toThrow(/differs in more/);
    expect(() =>
      deliveryModel(DEFAULT_DELIVERY_BOUNDS, {
        ...DELIVERY_RULES,
        itemCondition: () => ({
          ConditionExpression: '#version >= :v',
          ExpressionAttributeNames: { '#version': 'version' },
        }),
      }),
    ).toThrow(/two condition shapes/);
    // An emission that is no lifecycle event (the Delivery service publishes only those).
    expect(() =>
      deliveryModel(DEFAULT_DELIVERY_BOUNDS, {
        ...DELIVERY_RULES,
        react: ((input, guards) => {
          const decision = DELIVERY_RULES.react(input, guards);
          return decision.kind === 'change'
            ? {
                ...decision,
                emissions: decision.emissions.map((emitted) => ({ ...emitted, type: 'DroneScheduled' })),
              }
            : decision;
        }) as typeof DELIVERY_RULES.react,
      }),
    ).toThrow(/the rule emits DroneScheduled/);
    expect(() => deliveryModel({ ...DEFAULT_DELIVERY_BOUNDS, duplicated: ['PackageLost'] })).toThrow(
      /sends no message 'PackageLost'/,
    );
  });
});

describe('the delivery model, checked', () => {
  it('every consumer finishes, under weak fairness (liveness, within the smaller bounds)', () => {
    const model = deliveryModel(LIVENESS_DELIVERY_BOUNDS, DELIVERY_RULES, 'delivery-liveness', true);
    expectHolds(model, { kind: 'liveness', ltl: 'finishes' });
  });

  it('holds without the marker too: the reaction ignores a message it already applied (no marker variant can be caught)', () => {
    const model = deliveryModel(
      DEFAULT_DELIVERY_BOUNDS,
      { ...DELIVERY_RULES, markerCondition: undefined },
      'delivery-without-marker',
    );
    expectHolds(model, { kind: 'safety' });
  });
});
