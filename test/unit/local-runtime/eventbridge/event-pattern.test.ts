import {
  EventPatternError,
  matchesEventPattern,
} from '../../../../lib/local-runtime/eventbridge/event-pattern';

const event = {
  version: '0',
  source: 'order-processing',
  'detail-type': 'OrderFailed',
  account: '000000000000',
  resources: ['arn:a', 'arn:b'],
  detail: {
    orderId: 'A-1',
    reason: 'FailureThresholdReached',
    failureCount: 3,
    nested: { flag: true },
    empty: null,
  },
};

describe('matchesEventPattern', () => {
  it('matches source and detail-type lists (any listed value)', () => {
    expect(
      matchesEventPattern({ source: ['order-processing'], 'detail-type': ['OrderFailed', 'X'] }, event),
    ).toBe(true);
    expect(
      matchesEventPattern({ source: ['order-processing'], 'detail-type': ['SubmissionConflict'] }, event),
    ).toBe(false);
  });

  it('matches nested detail fields, array values (any element) and null', () => {
    expect(matchesEventPattern({ detail: { nested: { flag: [true] } } }, event)).toBe(true);
    expect(matchesEventPattern({ resources: ['arn:b'] }, event)).toBe(true);
    expect(matchesEventPattern({ detail: { empty: [null] } }, event)).toBe(true);
    expect(matchesEventPattern({ detail: { orderId: ['A-2'] } }, event)).toBe(false);
    expect(matchesEventPattern({ detail: { missing: ['x'] } }, event)).toBe(false);
  });

  it('supports prefix, suffix, equals-ignore-case, wildcard and anything-but', () => {
    expect(matchesEventPattern({ detail: { orderId: [{ prefix: 'A-' }] } }, event)).toBe(true);
    expect(matchesEventPattern({ detail: { reason: [{ suffix: 'Reached' }] } }, event)).toBe(true);
    expect(matchesEventPattern({ 'detail-type': [{ 'equals-ignore-case': 'orderfailed' }] }, event)).toBe(
      true,
    );
    expect(matchesEventPattern({ source: [{ wildcard: 'order-*' }] }, event)).toBe(true);
    expect(matchesEventPattern({ source: [{ wildcard: 'order.*' }] }, event)).toBe(false);
    expect(
      matchesEventPattern({ detail: { reason: [{ 'anything-but': ['AgentPermanentFailure'] }] } }, event),
    ).toBe(true);
    expect(
      matchesEventPattern({ detail: { reason: [{ 'anything-but': { prefix: 'Failure' } }] } }, event),
    ).toBe(false);
    expect(
      matchesEventPattern({ detail: { orderId: [{ prefix: { 'equals-ignore-case': 'a-' } }] } }, event),
    ).toBe(true);
  });

  it('supports numeric ranges and exists', () => {
    expect(matchesEventPattern({ detail: { failureCount: [{ numeric: ['>=', 3, '<', 5] }] } }, event)).toBe(
      true,
    );
    expect(matchesEventPattern({ detail: { failureCount: [{ numeric: ['>', 3] }] } }, event)).toBe(false);
    expect(matchesEventPattern({ detail: { failureCount: [{ numeric: ['=', 3] }] } }, event)).toBe(true);
    expect(matchesEventPattern({ detail: { orderId: [{ exists: true }] } }, event)).toBe(true);
    expect(matchesEventPattern({ detail: { missing: [{ exists: false }] } }, event)).toBe(true);
    expect(matchesEventPattern({ detail: { orderId: [{ exists: false }] } }, event)).toBe(false);
  });

  it('supports $or across fields', () => {
    expect(
      matchesEventPattern({ $or: [{ source: ['nope'] }, { detail: { orderId: ['A-1'] } }] }, event),
    ).toBe(true);
    expect(matchesEventPattern({ $or: [{ source: ['nope'] }, { detail: { orderId: ['B'] } }] }, event)).toBe(
      false,
    );
  });

  it('rejects malformed patterns with an error naming the problem', () => {
    expect(() => matchesEventPattern('source', event)).toThrow(EventPatternError);
    expect(() => matchesEventPattern({ source: 'order-processing' }, event)).toThrow(
      /'source' must be a list/,
    );
    expect(() => matchesEventPattern({ source: [{ cidr: '10.0.0.0/8' }] }, event)).toThrow(
      /Unsupported content filter/,
    );
    expect(() => matchesEventPattern({ detail: { failureCount: [{ numeric: ['~', 1] }] } }, event)).toThrow(
      /Unknown numeric operator/,
    );
  });
});
