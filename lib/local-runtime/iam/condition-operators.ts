/**
 * IAM's condition operators, as the IAM User Guide defines them
 * (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_condition_operators.html
 * and, for sets, https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_condition-single-vs-multi-valued-context-keys.html).
 * Compiled once per policy: an operator this table does not know is an error at compile time (the
 * local deploy fails naming it), never a condition that silently holds or fails.
 *
 * The rules encoded here:
 * - Within one key, the policy's values are OR'ed: a positive operator holds when the request's value
 *   matches any of them; a negated operator (StringNotEquals, ArnNotLike...) holds when it matches
 *   none.
 * - A key missing from the request: positive operators are false, negated operators are true
 *   ("If the policy condition requires that the key is not matched, such as StringNotLike or
 *   ArnNotLike, and the right key is not present, the condition is true"), `...IfExists` is true,
 *   and `Null` tests exactly that.
 * - `ForAllValues:` holds when every value of the request's (multivalued) key satisfies the
 *   operator, and when the key is missing or empty; `ForAnyValue:` when at least one does (false when
 *   missing or empty).
 * - A single-valued operator given several request values holds for a positive operator when any of
 *   them matches, for a negated one when none does.
 */
import { arnMatches, globMatches, literalText } from './arn';

/** A request value as conditions see it: absent, one value, or several (a multivalued key). */
export type ConditionInput = readonly string[] | undefined;

/** One compiled operator: does the request's value(s) satisfy it against the policy's values? */
export type CompiledOperator = (policyValues: readonly string[], input: ConditionInput) => boolean;

interface BaseOperator {
  /** Does one request value match one policy value (before negation)? */
  readonly match: (policyValue: string, value: string) => boolean;
  readonly negated: boolean;
  /**
   * The policy value is a pattern (wildcards, literal `*` from `${*}`, arn.ts); else it is compared
   * as the text it stands for.
   */
  readonly pattern?: true;
  /** Checks a policy value when the policy is compiled; returns a problem, if any. */
  readonly validate?: (policyValue: string) => string | undefined;
}

function numberOf(text: string): number | undefined {
  if (text.trim() === '') return undefined;
  const value = Number(text);
  return Number.isFinite(value) ? value : undefined;
}

/** ISO 8601 or epoch seconds, as IAM's date operators take them. */
function dateOf(text: string): number | undefined {
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const millis = Date.parse(text);
  return Number.isNaN(millis) ? undefined : millis;
}

function compareNumbers(test: (a: number, b: number) => boolean) {
  return (policyValue: string, value: string) => {
    const wanted = numberOf(policyValue);
    const actual = numberOf(value);
    return wanted !== undefined && actual !== undefined && test(actual, wanted);
  };
}

function compareDates(test: (a: number, b: number) => boolean) {
  return (policyValue: string, value: string) => {
    const wanted = dateOf(policyValue);
    const actual = dateOf(value);
    return wanted !== undefined && actual !== undefined && test(actual, wanted);
  };
}

const numberProblem = (value: string) =>
  numberOf(value) === undefined ? `'${value}' is not a number` : undefined;
const dateProblem = (value: string) => (dateOf(value) === undefined ? `'${value}' is not a date` : undefined);
const boolProblem = (value: string) =>
  value.toLowerCase() === 'true' || value.toLowerCase() === 'false'
    ? undefined
    : `'${value}' is not true or false`;

/** An IPv4 CIDR (or single address) match; IPv6 is compared as written. */
function ipMatches(cidr: string, address: string): boolean {
  const toNumber = (ip: string) => {
    const parts = ip.split('.').map(Number);
    if (parts.length !== 4 || parts.some((part) => !Number.isInteger(part) || part < 0 || part > 255)) {
      return undefined;
    }
    return parts.reduce((sum, part) => sum * 256 + part, 0);
  };
  const [network = '', bitsText] = cidr.split('/');
  const bits = bitsText === undefined ? 32 : Number(bitsText);
  const wanted = toNumber(network);
  const actual = toNumber(address);
  if (wanted === undefined || actual === undefined) return cidr === address;
  const size = 2 ** (32 - bits);
  return Math.floor(wanted / size) === Math.floor(actual / size);
}

const BASE_OPERATORS: Readonly<Record<string, BaseOperator>> = {
  StringEquals: { negated: false, match: (p, v) => p === v },
  StringNotEquals: { negated: true, match: (p, v) => p === v },
  StringEqualsIgnoreCase: { negated: false, match: (p, v) => p.toLowerCase() === v.toLowerCase() },
  StringNotEqualsIgnoreCase: { negated: true, match: (p, v) => p.toLowerCase() === v.toLowerCase() },
  StringLike: { negated: false, pattern: true, match: (p, v) => globMatches(p, v) },
  StringNotLike: { negated: true, pattern: true, match: (p, v) => globMatches(p, v) },
  NumericEquals: { negated: false, match: compareNumbers((a, b) => a === b), validate: numberProblem },
  NumericNotEquals: { negated: true, match: compareNumbers((a, b) => a === b), validate: numberProblem },
  NumericLessThan: { negated: false, match: compareNumbers((a, b) => a < b), validate: numberProblem },
  NumericLessThanEquals: { negated: false, match: compareNumbers((a, b) => a <= b), validate: numberProblem },
  NumericGreaterThan: { negated: false, match: compareNumbers((a, b) => a > b), validate: numberProblem },
  NumericGreaterThanEquals: {
    negated: false,
    match: compareNumbers((a, b) => a >= b),
    validate: numberProblem,
  },
  DateEquals: { negated: false, match: compareDates((a, b) => a === b), validate: dateProblem },
  DateNotEquals: { negated: true, match: compareDates((a, b) => a === b), validate: dateProblem },
  DateLessThan: { negated: false, match: compareDates((a, b) => a < b), validate: dateProblem },
  DateLessThanEquals: { negated: false, match: compareDates((a, b) => a <= b), validate: dateProblem },
  DateGreaterThan: { negated: false, match: compareDates((a, b) => a > b), validate: dateProblem },
  DateGreaterThanEquals: { negated: false, match: compareDates((a, b) => a >= b), validate: dateProblem },
  Bool: { negated: false, match: (p, v) => p.toLowerCase() === v.toLowerCase(), validate: boolProblem },
  BinaryEquals: { negated: false, match: (p, v) => p === v },
  IpAddress: { negated: false, match: ipMatches },
  NotIpAddress: { negated: true, match: ipMatches },
  ArnEquals: { negated: false, pattern: true, match: arnMatches },
  ArnLike: { negated: false, pattern: true, match: arnMatches },
  ArnNotEquals: { negated: true, pattern: true, match: arnMatches },
  ArnNotLike: { negated: true, pattern: true, match: arnMatches },
};

/** The operators IAM defines, without qualifiers: what the evaluator knows. */
export const KNOWN_OPERATORS: readonly string[] = [...Object.keys(BASE_OPERATORS), 'Null'];

export type OperatorCompilation =
  | { readonly ok: true; readonly operator: CompiledOperator; readonly setOperator: boolean }
  | { readonly ok: false; readonly problem: string };

/**
 * Compiles a condition operator as written in a policy (`StringEquals`, `ArnLikeIfExists`,
 * `ForAllValues:StringLike`, `Null`...), checking the policy's values where the operator needs a
 * number, a date or a boolean.
 */
export function compileOperator(written: string, policyValues: readonly string[]): OperatorCompilation {
  const qualifierMatch = /^(ForAllValues|ForAnyValue):(.+)$/.exec(written);
  const qualifier = qualifierMatch?.[1] as 'ForAllValues' | 'ForAnyValue' | undefined;
  const rest = qualifierMatch?.[2] ?? written;
  if (rest === 'Null') {
    if (qualifier)
      return { ok: false, problem: `${written}: Null takes no ForAllValues/ForAnyValue qualifier` };
    const problem = policyValues.map(boolProblem).find((found) => found !== undefined);
    if (problem) return { ok: false, problem: `Null: ${problem}` };
    return {
      ok: true,
      setOperator: false,
      // `"true"`: the key is absent (or empty); `"false"`: it is present. Values are OR'ed.
      operator: (values, input) => {
        const absent = input === undefined || input.length === 0;
        return values.some((value) => (value.toLowerCase() === 'true') === absent);
      },
    };
  }
  const ifExists = rest.endsWith('IfExists') && rest !== 'IfExists';
  const name = ifExists ? rest.slice(0, -'IfExists'.length) : rest;
  const base = BASE_OPERATORS[name];
  if (!base) {
    return {
      ok: false,
      problem: `condition operator ${written} is not one the local evaluator knows (${KNOWN_OPERATORS.join(', ')}, with IfExists and ForAllValues/ForAnyValue)`,
    };
  }
  for (const value of policyValues) {
    const problem = base.validate?.(value);
    if (problem) return { ok: false, problem: `${written}: ${problem}` };
  }
  /** One request value against the policy's values, negation applied. */
  const single = (values: readonly string[], value: string) =>
    values.some((policyValue) => base.match(base.pattern ? policyValue : literalText(policyValue), value)) !==
    base.negated;
  if (qualifier === 'ForAllValues') {
    return {
      ok: true,
      setOperator: true,
      operator: (values, input) =>
        input === undefined || input.length === 0 || input.every((value) => single(values, value)),
    };
  }
  if (qualifier === 'ForAnyValue') {
    return {
      ok: true,
      setOperator: true,
      operator: (values, input) =>
        input !== undefined && input.length > 0 && input.some((value) => single(values, value)),
    };
  }
  return {
    ok: true,
    setOperator: false,
    operator: (values, input) => {
      if (input === undefined || input.length === 0) return ifExists || base.negated;
      // Several request values with a single-valued operator: any matches / none matches.
      return base.negated
        ? input.every((value) => single(values, value))
        : input.some((value) => single(values, value));
    },
  };
}
