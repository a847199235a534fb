/** SNS subscription filter policies: which policies SNS accepts, and what they pass, by scope. */

import { AwsApiError } from '../../../../lib/local-runtime/protocol/aws-api-error';
import {
  matchesFilterPolicy,
  parseFilterPolicy,
  type SnsMessageAttributes,
} from '../../../../lib/local-runtime/sns';

const string = (StringValue: string) => ({ DataType: 'String', StringValue });
const number = (StringValue: string) => ({ DataType: 'Number', StringValue });
const array = (values: unknown[]) => ({ DataType: 'String.Array', StringValue: JSON.stringify(values) });

/** Whether a MessageAttributes-scoped policy passes a message with these attributes. */
const passes = (policy: object, attributes: SnsMessageAttributes) =>
  matchesFilterPolicy(parseFilterPolicy(JSON.stringify(policy), undefined), 'body', attributes);

describe('SNS filter policies on message attributes (the default scope)', () => {
  it('matches exact strings, and any element of a String.Array', () => {
    expect(passes({ kind: ['drone', 'truck'] }, { kind: string('drone') })).toBe(true);
    expect(passes({ kind: ['drone'] }, { kind: string('bike') })).toBe(false);
    expect(passes({ kind: ['drone'] }, { kind: array(['bike', 'drone']) })).toBe(true);
    expect(passes({ kind: ['drone'] }, {})).toBe(false);
  });

  it('matches Number attributes as numbers: exact and numeric ranges; a String "5" is not the number 5', () => {
    expect(passes({ weight: [5] }, { weight: number('5.0') })).toBe(true);
    expect(passes({ weight: [{ numeric: ['>', 0, '<=', 10] }] }, { weight: number('10') })).toBe(true);
    expect(passes({ weight: [{ numeric: ['>', 0, '<=', 10] }] }, { weight: number('10.5') })).toBe(false);
    expect(passes({ weight: [5] }, { weight: string('5') })).toBe(false);
    expect(passes({ weight: [{ numeric: ['=', 3] }] }, { weight: array([1, 3]) })).toBe(true);
  });

  it('supports prefix, suffix, equals-ignore-case and anything-but (values and prefix)', () => {
    expect(passes({ id: [{ prefix: 'ord-' }] }, { id: string('ord-1') })).toBe(true);
    expect(passes({ id: [{ suffix: '.eu' }] }, { id: string('ord-1.us') })).toBe(false);
    expect(passes({ id: [{ 'equals-ignore-case': 'ABC' }] }, { id: string('abc') })).toBe(true);
    expect(passes({ state: [{ 'anything-but': ['cancelled', 'failed'] }] }, { state: string('ok') })).toBe(
      true,
    );
    expect(passes({ state: [{ 'anything-but': ['cancelled'] }] }, { state: string('cancelled') })).toBe(
      false,
    );
    expect(passes({ state: [{ 'anything-but': { prefix: 'test-' } }] }, { state: string('test-1') })).toBe(
      false,
    );
    expect(passes({ state: [{ 'anything-but': { prefix: 'test-' } }] }, { state: string('prod-1') })).toBe(
      true,
    );
    expect(passes({ state: [{ 'anything-but': ['x'] }] }, {})).toBe(false);
  });

  it('supports exists, $or, and never matches Binary attributes', () => {
    expect(passes({ trace: [{ exists: true }] }, { trace: string('t') })).toBe(true);
    expect(passes({ trace: [{ exists: false }] }, {})).toBe(true);
    expect(passes({ trace: [{ exists: false }] }, { trace: string('t') })).toBe(false);
    const either = { $or: [{ kind: ['drone'] }, { priority: [{ numeric: ['>=', 5] }] }] };
    expect(passes(either, { kind: string('truck'), priority: number('7') })).toBe(true);
    expect(passes(either, { kind: string('truck'), priority: number('1') })).toBe(false);
    expect(passes({ blob: [{ exists: true }] }, { blob: { DataType: 'Binary', BinaryValue: 'AA==' } })).toBe(
      false,
    );
  });

  it('passes every message without a policy, or with an empty one', () => {
    expect(matchesFilterPolicy(undefined, 'x', {})).toBe(true);
    expect(passes({}, {})).toBe(true);
  });
});

describe('SNS filter policies on the message body', () => {
  const body = (policy: object, message: string) =>
    matchesFilterPolicy(parseFilterPolicy(policy, 'MessageBody'), message, {});

  it('matches nested properties of a JSON body', () => {
    const policy = { order: { status: ['ready'], weight: [{ numeric: ['<', 5] }] } };
    expect(body(policy, JSON.stringify({ order: { status: 'ready', weight: 2 } }))).toBe(true);
    expect(body(policy, JSON.stringify({ order: { status: 'ready', weight: 9 } }))).toBe(false);
  });

  it('passes no body that is not JSON unless the policy is empty', () => {
    expect(body({ a: ['b'] }, 'plain text')).toBe(false);
    expect(body({}, 'plain text')).toBe(true);
  });
});

describe('SNS filter policy validation', () => {
  const problem = (policy: unknown, scope?: string) => {
    try {
      parseFilterPolicy(policy, scope);
      return undefined;
    } catch (error) {
      return `${(error as AwsApiError).errorType}: ${(error as Error).message}`;
    }
  };

  it('refuses what SNS refuses, as InvalidParameter', () => {
    expect(problem('{not json')).toMatch(/^InvalidParameter: Invalid parameter: FilterPolicy/);
    expect(problem({ a: { b: ['c'] } })).toMatch(/does not support nested filter policy/);
    expect(problem({ a: { b: ['c'] } }, 'MessageBody')).toBeUndefined();
    expect(problem({ a: [{ wildcard: '*' }] })).toMatch(/Unrecognized match type wildcard/);
    expect(problem({ a: ['b'] }, 'Everything')).toMatch(/^InvalidParameter: .*FilterPolicyScope/);
    expect(problem('')).toBeUndefined();
  });
});
