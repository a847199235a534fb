/**
 * EventBridge event pattern matching (content filtering), as documented for rules: every key of
 * the pattern must match; arrays list alternatives; nested objects match nested fields; and the
 * content filters prefix, suffix, anything-but, numeric, exists, equals-ignore-case, wildcard and
 * $or. Pure, so the local event bus routes exactly as the rules are written.
 *
 * Hand-written on purpose: AWS's own matcher (event-ruler) is Java, TestEventPattern is a call to
 * AWS, and the npm packages that match patterns do it inside a Serverless plugin (not a library).
 */

type Json = unknown;

export class EventPatternError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EventPatternError';
  }
}

export function matchesEventPattern(pattern: Json, event: Json): boolean {
  if (!isObject(pattern)) {
    throw new EventPatternError(`An event pattern must be a JSON object, got ${JSON.stringify(pattern)}`);
  }
  return matchObject(pattern, isObject(event) ? event : {});
}

function isObject(value: Json): value is Record<string, Json> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function matchObject(pattern: Record<string, Json>, event: Record<string, Json>): boolean {
  return Object.entries(pattern).every(([key, rule]) => {
    if (key === '$or') {
      if (!Array.isArray(rule)) throw new EventPatternError('$or must be a list of patterns');
      return rule.some((alternative) => isObject(alternative) && matchObject(alternative, event));
    }
    const value = event[key];
    if (isObject(rule)) {
      return isObject(value) && matchObject(rule, value);
    }
    if (!Array.isArray(rule)) {
      throw new EventPatternError(`Pattern field '${key}' must be a list or an object`);
    }
    return matchField(rule, value);
  });
}

/** A field matches when any matcher matches the value (or, for an array value, any element). */
function matchField(matchers: Json[], value: Json): boolean {
  const existsMatcher = matchers.find((matcher) => isObject(matcher) && 'exists' in matcher);
  if (existsMatcher !== undefined && isObject(existsMatcher)) {
    const present = value !== undefined && !isObject(value);
    return existsMatcher.exists === present;
  }
  if (value === undefined) return false;
  const candidates = Array.isArray(value) ? value : [value];
  return candidates.some((candidate) => matchers.some((matcher) => matchOne(matcher, candidate)));
}

function matchOne(matcher: Json, value: Json): boolean {
  if (!isObject(matcher)) {
    return matcher === value;
  }
  const [kind, operand] = Object.entries(matcher)[0] ?? [];
  switch (kind) {
    case 'prefix':
      return typeof value === 'string' && matchAffix(operand, value, (text, affix) => text.startsWith(affix));
    case 'suffix':
      return typeof value === 'string' && matchAffix(operand, value, (text, affix) => text.endsWith(affix));
    case 'equals-ignore-case':
      return (
        typeof value === 'string' &&
        typeof operand === 'string' &&
        value.toLowerCase() === operand.toLowerCase()
      );
    case 'wildcard':
      return typeof value === 'string' && typeof operand === 'string' && wildcardRegExp(operand).test(value);
    case 'anything-but':
      return matchAnythingBut(operand, value);
    case 'numeric':
      return typeof value === 'number' && matchNumeric(operand, value);
    default:
      throw new EventPatternError(`Unsupported content filter ${JSON.stringify(matcher)}`);
  }
}

function matchAffix(operand: Json, value: string, test: (text: string, affix: string) => boolean): boolean {
  if (typeof operand === 'string') return test(value, operand);
  if (isObject(operand) && typeof operand['equals-ignore-case'] === 'string') {
    return test(value.toLowerCase(), operand['equals-ignore-case'].toLowerCase());
  }
  throw new EventPatternError(`Unsupported prefix/suffix operand ${JSON.stringify(operand)}`);
}

function matchAnythingBut(operand: Json, value: Json): boolean {
  if (Array.isArray(operand)) return !operand.includes(value);
  if (isObject(operand)) return !matchOne(operand, value);
  return operand !== value;
}

function matchNumeric(operand: Json, value: number): boolean {
  if (!Array.isArray(operand) || operand.length % 2 !== 0) {
    throw new EventPatternError(`numeric needs operator/number pairs, got ${JSON.stringify(operand)}`);
  }
  for (let index = 0; index < operand.length; index += 2) {
    const operator = operand[index];
    const bound = operand[index + 1];
    if (typeof bound !== 'number') throw new EventPatternError(`numeric bound must be a number`);
    const ok =
      operator === '='
        ? value === bound
        : operator === '>'
          ? value > bound
          : operator === '>='
            ? value >= bound
            : operator === '<'
              ? value < bound
              : operator === '<='
                ? value <= bound
                : undefined;
    if (ok === undefined) throw new EventPatternError(`Unknown numeric operator ${JSON.stringify(operator)}`);
    if (!ok) return false;
  }
  return true;
}

function wildcardRegExp(pattern: string): RegExp {
  const escaped = pattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${escaped.join('.*')}$`, 's');
}
