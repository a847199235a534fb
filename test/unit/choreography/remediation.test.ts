import type { RemediationSettings, ServiceName } from '../../../lambdas/choreography/contracts';
import type { Decision } from '../../../lambdas/choreography/domain/decision';
import {
  backoffSeconds,
  type DeadLetteredMessage,
  decideRemediation,
  type RemediationChange,
  type RemediationOutcome,
  type RemediationState,
  subjectOf,
  UNATTRIBUTED,
} from '../../../lambdas/choreography/domain/remediation';
import { requested, T0 } from './events';

const settings: RemediationSettings = {
  maxReceiveAttempts: 3,
  processedMessageTtlSeconds: 3600,
  retryBaseSeconds: 10,
  retryMaxSeconds: 60,
};
const body = JSON.stringify(requested());
const later = (seconds: number) => new Date(T0.getTime() + seconds * 1000);

function letter(overrides: Partial<DeadLetteredMessage> = {}): DeadLetteredMessage {
  return {
    deadLetterKey: 'key-1',
    source: 'drone-scheduler',
    reasonCode: 'NO_DRONE_AVAILABLE',
    deadLetteredAt: T0,
    body,
    ...overrides,
  };
}

const decide = (deadLetter: DeadLetteredMessage, state?: RemediationState, now = later(3600)) =>
  decideRemediation({ state, deadLetter, now, settings });

function changed(outcome: RemediationOutcome): Extract<Decision<RemediationChange>, { kind: 'change' }> {
  if (outcome.kind !== 'change') throw new Error(`expected a change, got ${outcome.kind}`);
  return outcome;
}

/** Decides a series of dead letters of one delivery, each on the state the previous one left. */
function ladder(count: number, overrides: Partial<DeadLetteredMessage> = {}) {
  let state: RemediationState | undefined;
  const decisions: string[] = [];
  for (let index = 1; index <= count; index += 1) {
    const outcome = changed(decide(letter({ deadLetterKey: `key-${index}`, ...overrides }), state));
    state = outcome.state.remediation;
    decisions.push(String(outcome.emissions[0]?.data.decision ?? 'none'));
  }
  return { state, decisions };
}

describe('subjectOf', () => {
  it('reads the delivery, correlation and event id of any envelope, valid or not', () => {
    expect(subjectOf(body)).toMatchObject({
      key: 'delivery-1',
      deliveryId: 'delivery-1',
      correlationId: 'corr-delivery-1',
      eventId: 'ingestion:delivery-1:1',
    });
    const invalid = JSON.stringify({ deliveryId: 'd-9', type: 'Nope' });
    expect(subjectOf(invalid)).toMatchObject({ key: 'd-9', deliveryId: 'd-9', message: { type: 'Nope' } });
  });

  it('files poison under UNATTRIBUTED', () => {
    expect(subjectOf('not json')).toEqual({ key: UNATTRIBUTED });
    expect(subjectOf('{"deliveryId":"has spaces"}')).toEqual({ key: UNATTRIBUTED });
  });
});

describe('backoffSeconds', () => {
  it('doubles from the base and is capped', () => {
    expect([1, 2, 3, 4, 5].map((n) => backoffSeconds(n, settings))).toEqual([10, 20, 40, 60, 60]);
    expect(backoffSeconds(1, { ...settings, retryBaseSeconds: 0 })).toBe(0);
  });
});

describe('decideRemediation', () => {
  it('walks the NO_DRONE_AVAILABLE ladder: RETRY, RETRY, PIVOT, GIVE_UP (and GIVE_UP past its end)', () => {
    const { state, decisions } = ladder(5);
    expect(decisions).toEqual(['RETRY', 'RETRY', 'PIVOT', 'GIVE_UP', 'GIVE_UP']);
    expect(state?.occurrences).toEqual({ 'drone-scheduler#NO_DRONE_AVAILABLE': 5 });
    expect(state?.decisions.map((decided) => decided.occurrence)).toEqual([1, 2, 3, 4, 5]);
  });

  it('counts occurrences per source and reason code', () => {
    const first = changed(decide(letter()));
    const other = changed(
      decide(letter({ deadLetterKey: 'key-2', reasonCode: 'DEPENDENCY_TIMEOUT' }), first.state.remediation),
    );
    expect(other.emissions[0]?.data).toMatchObject({ decision: 'RETRY', occurrence: 1 });
    expect(other.state.remediation.occurrences).toEqual({
      'drone-scheduler#NO_DRONE_AVAILABLE': 1,
      'drone-scheduler#DEPENDENCY_TIMEOUT': 1,
    });
  });

  it('a RETRY carries the dead-lettered envelope and goes to the requests topic', () => {
    const outcome = changed(decide(letter()));
    expect(outcome.emissions).toEqual([
      {
        destination: 'requests-topic',
        type: 'RemediationDecided',
        data: {
          decision: 'RETRY',
          reasonCode: 'NO_DRONE_AVAILABLE',
          source: 'drone-scheduler',
          occurrence: 1,
          deadLetteredEventId: 'ingestion:delivery-1:1',
          detail: expect.stringContaining('NO_DRONE_AVAILABLE'),
          retryOf: JSON.parse(body),
        },
      },
    ]);
    expect(outcome.state.alerts).toEqual([]);
    expect(outcome.state.remediation.deliveryId).toBe('delivery-1');
  });

  it('defers a RETRY until base × 2^(n-1) after it was dead-lettered, recording nothing', () => {
    expect(decideRemediation({ state: undefined, deadLetter: letter(), now: later(3), settings })).toEqual({
      kind: 'defer',
      delaySeconds: 7,
      decision: 'RETRY',
      occurrence: 1,
    });
    const first = changed(decide(letter()));
    const second = decideRemediation({
      state: first.state.remediation,
      deadLetter: letter({ deadLetterKey: 'key-2' }),
      now: later(19.5),
      settings,
    });
    expect(second).toMatchObject({ kind: 'defer', delaySeconds: 1, occurrence: 2 });
    expect(
      decideRemediation({
        state: first.state.remediation,
        deadLetter: letter({ deadLetterKey: 'key-2' }),
        now: later(20),
        settings,
      }).kind,
    ).toBe('change');
  });

  it('never defers a COMPENSATE or GIVE_UP', () => {
    const outcome = decideRemediation({
      state: undefined,
      deadLetter: letter({ source: 'package', reasonCode: 'PACKAGE_TOO_HEAVY' }),
      now: T0,
      settings,
    });
    expect(changed(outcome).emissions[0]?.data).toMatchObject({ decision: 'COMPENSATE' });
    expect(changed(outcome).state.alerts).toEqual([]);
    expect(changed(outcome).emissions[0]?.data).not.toHaveProperty('retryOf');
  });

  it('reads an absent reason code as RETRIES_EXHAUSTED: RETRY, then GIVE_UP with an operator alert', () => {
    const { state, decisions } = ladder(2, { reasonCode: undefined, source: 'delivery' });
    expect(decisions).toEqual(['RETRY', 'GIVE_UP']);
    expect(state?.occurrences).toEqual({ 'delivery#RETRIES_EXHAUSTED': 2 });
  });

  it('GIVE_UP also raises a DeliveryNeedsOperator alert for the alert bus', () => {
    const outcome = changed(decide(letter({ reasonCode: 'SCHEMA_INVALID', source: 'package' })));
    expect(outcome.emissions[0]?.data).toMatchObject({ decision: 'GIVE_UP', reasonCode: 'SCHEMA_INVALID' });
    expect(outcome.state.alerts).toEqual([
      {
        alertId: 'remediation:key-1',
        deliveryId: 'delivery-1',
        correlationId: 'corr-delivery-1',
        reasonCode: 'SCHEMA_INVALID',
        decision: 'GIVE_UP',
        source: 'package',
        detail: expect.any(String),
        raisedAt: later(3600).toISOString(),
      },
    ]);
  });

  it('an unattributed dead letter (poison) is an ALERT only: no RemediationDecided', () => {
    const outcome = changed(decide(letter({ body: '{oops', reasonCode: 'POISON', source: 'ingestion' })));
    expect(outcome.emissions).toEqual([]);
    expect(outcome.state.remediation.deliveryId).toBe(UNATTRIBUTED);
    expect(outcome.state.alerts).toEqual([
      expect.objectContaining({ decision: 'ALERT', reasonCode: 'POISON', source: 'ingestion' }),
    ]);
    expect(outcome.state.alerts[0]).not.toHaveProperty('deliveryId');
  });

  it('even a retryable code is only an ALERT when no delivery can be named', () => {
    const outcome = changed(decide(letter({ body: '[]', reasonCode: 'NO_DRONE_AVAILABLE' })));
    expect(outcome.emissions).toEqual([]);
    expect(outcome.state.alerts[0]?.decision).toBe('ALERT');
  });

  it('a reason code outside the contract is an ALERT, never a retry', () => {
    const outcome = changed(decide(letter({ reasonCode: 'MADE_UP' })));
    expect(outcome.emissions[0]?.data).toMatchObject({ decision: 'ALERT', reasonCode: 'SCHEMA_INVALID' });
    expect(outcome.emissions[0]?.data.detail).toContain('MADE_UP');
    expect(outcome.state.alerts).toHaveLength(1);
  });

  it('decides one dead letter exactly once', () => {
    const first = changed(decide(letter()));
    expect(decide(letter(), first.state.remediation)).toEqual({
      kind: 'ignore',
      reason: expect.stringContaining('decided already'),
    });
  });

  it.each<[ServiceName, string]>([
    ['package', 'PACKAGE_TOO_HEAVY'],
    ['drone-scheduler', 'NO_DRONE_AVAILABLE'],
    ['delivery', 'DEPENDENCY_TIMEOUT'],
    ['ingestion', 'UNKNOWN_VERSION'],
  ])('every decision of %s / %s names its source and the dead-lettered event', (source, reasonCode) => {
    const outcome = changed(decide(letter({ source, reasonCode })));
    expect(outcome.emissions[0]?.data).toMatchObject({
      source,
      deadLetteredEventId: 'ingestion:delivery-1:1',
    });
  });
});
