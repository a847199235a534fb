/**
 * IAM's ARN and wildcard matching, one home for every policy element that compares names: Action
 * (case-insensitive globs), Resource and the Arn* condition operators (ARN component by component),
 * and the String*Like operators (globs over the whole string).
 *
 * AWS: "Each of the six colon-delimited components of the ARN is checked separately and each can
 * include multi-character match wildcards (*) or single-character match wildcards (?)"
 * (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_condition_operators.html#Conditions_ARN).
 *
 * A pattern may hold a literal `*` or `?`: policy variables put them there (`${*}`, `${?}`, and any
 * variable's value), and "inserting an * asterisk in the string would be interpreted as a wildcard"
 * is exactly what those variables exist to avoid
 * (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_variables.html#policy-vars-specialchars).
 * Substitution writes them as LITERAL_ASTERISK / LITERAL_QUESTION_MARK, private-use characters no
 * policy can contain ("Policy documents can contain only the following Unicode characters: horizontal
 * tab (U+0009), linefeed (U+000A), carriage return (U+000D), and characters in the range U+0020 to
 * U+00FF", https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_iam-quotas.html#reference_iam-quotas-names).
 */

/** A `*` that matches only itself (from `${*}` or a variable's value). */
export const LITERAL_ASTERISK = '\uE000';
/** A `?` that matches only itself (from `${?}` or a variable's value). */
export const LITERAL_QUESTION_MARK = '\uE001';

/** The text a pattern stands for when read literally (equality operators). */
export function literalText(pattern: string): string {
  return pattern.replaceAll(LITERAL_ASTERISK, '*').replaceAll(LITERAL_QUESTION_MARK, '?');
}

const patternCache = new Map<string, RegExp>();

/** A glob (`*` any run, `?` one character) as a regular expression over the whole string. */
export function globPattern(glob: string, caseInsensitive = false): RegExp {
  const cacheKey = `${caseInsensitive ? 'i' : 's'}${glob}`;
  const cached = patternCache.get(cacheKey);
  if (cached) return cached;
  const escaped = glob
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.')
    .replaceAll(LITERAL_ASTERISK, '\\*')
    .replaceAll(LITERAL_QUESTION_MARK, '\\?');
  const pattern = new RegExp(`^${escaped}$`, caseInsensitive ? 'is' : 's');
  patternCache.set(cacheKey, pattern);
  return pattern;
}

/** Whether `value` matches the glob `pattern` (`*`, `?`). */
export function globMatches(pattern: string, value: string, caseInsensitive = false): boolean {
  if (pattern === '*') return true;
  if (!pattern.includes('*') && !pattern.includes('?')) {
    const literal = literalText(pattern);
    return caseInsensitive ? literal.toLowerCase() === value.toLowerCase() : literal === value;
  }
  return globPattern(pattern, caseInsensitive).test(value);
}

/** The six colon-separated components of an ARN (the last keeps its own colons), if it is one. */
export function arnComponents(arn: string): string[] | undefined {
  const parts = arn.split(':');
  if (parts.length < 6 || parts[0] !== 'arn') return undefined;
  return [...parts.slice(0, 5), parts.slice(5).join(':')];
}

/** IAM's ARN matching: `*` matches anything; else component by component, each with its wildcards. */
export function arnMatches(pattern: string, arn: string): boolean {
  if (pattern === '*') return true;
  const wanted = arnComponents(pattern);
  const actual = arnComponents(arn);
  if (!wanted || !actual) return false;
  return wanted.every((component, index) => globMatches(component, actual[index] as string));
}

/** The account an ARN names (its fifth component), if any. */
export function accountOfArn(arn: string): string | undefined {
  const account = arnComponents(arn)?.[4];
  return account === '' ? undefined : account;
}
