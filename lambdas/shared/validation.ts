import type * as z from 'zod';

/**
 * What a client is told about a bad request: one `{path, message}` per problem, with paths written
 * the way a developer would (`items[0].quantity`), built from schema issues (zod, or the Powertools
 * parser, which reports zod issues).
 */

/** One problem with a request, as returned in a 400 body. */
export interface FieldError {
  readonly path: string;
  readonly message: string;
}

export interface ErrorResponseBody {
  readonly message: string;
  readonly errors?: readonly FieldError[];
}

/** Path shown for a problem with the body as a whole (not valid JSON, too large, not an object). */
export const BODY_PATH = '(body)';

/** The parts of a validation issue this module reads (zod issues have this shape). */
export interface ValidationIssue {
  readonly code: string;
  readonly path: readonly PropertyKey[];
  readonly message: string;
  readonly keys?: readonly string[];
}

/** Bounds the 400 body: a request with 50 bad items must not produce a 50 KB answer. */
export const MAX_REPORTED_ERRORS = 20;

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** `['items', 0, 'quantity']` -> `items[0].quantity`; the root -> `(body)` (or the label given). */
export function formatIssuePath(path: readonly PropertyKey[], rootLabel: string = BODY_PATH): string {
  if (path.length === 0) {
    return rootLabel;
  }
  let formatted = '';
  for (const segment of path) {
    if (typeof segment === 'number') {
      formatted += `[${segment}]`;
    } else {
      const name = String(segment);
      if (IDENTIFIER.test(name)) {
        formatted += formatted === '' ? name : `.${name}`;
      } else {
        formatted += `[${JSON.stringify(name)}]`;
      }
    }
  }
  return formatted;
}

/** Where the validated value sits, for the paths shown. */
export interface IssuePathOptions {
  /** Shown before every path, e.g. `['body']` when headers are reported alongside (`body.items[0].sku`). */
  readonly prefix?: readonly PropertyKey[];
  /** Shown for the value as a whole when there is no prefix (default `(body)`). */
  readonly rootLabel?: string;
}

/**
 * Maps schema issues to `{path, message}` pairs a client can act on: one entry per unknown field
 * (named by its own path), "is required" for a missing field instead of "expected string, received
 * undefined", and the schema's message otherwise.
 */
export function fieldErrorsFromIssues(
  issues: readonly ValidationIssue[],
  input: unknown,
  options: IssuePathOptions = {},
): FieldError[] {
  const prefix = options.prefix ?? [];
  const pathOf = (path: readonly PropertyKey[]) => formatIssuePath([...prefix, ...path], options.rootLabel);
  const errors: FieldError[] = [];
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys' && issue.keys && issue.keys.length > 0) {
      for (const key of issue.keys) {
        errors.push({ path: pathOf([...issue.path, key]), message: 'is not an allowed field' });
      }
    } else if (
      issue.code === 'invalid_type' &&
      issue.path.length > 0 &&
      valueAt(input, issue.path) === undefined
    ) {
      errors.push({ path: pathOf(issue.path), message: 'is required' });
    } else {
      errors.push({ path: pathOf(issue.path), message: issue.message });
    }
  }
  return errors.slice(0, MAX_REPORTED_ERRORS);
}

/** The problems on one line (`items[0].quantity: Too small: expected number to be >=1; currency: …`), for logs and thrown errors. */
export function describeFieldErrors(errors: readonly FieldError[]): string {
  return errors.map((error) => `${error.path}: ${error.message}`).join('; ');
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let current: unknown = input;
  for (const segment of path) {
    if (current === null || typeof current !== 'object') {
      return undefined;
    }
    current = (current as Record<PropertyKey, unknown>)[segment];
  }
  return current;
}

/**
 * Names of the code points a client most likely sent by accident or to deceive (bidi overrides
 * make `abc` display as `cba`, zero-width characters make two different ids look equal); the
 * others are named by their category.
 */
const CODE_POINT_NAMES: Readonly<Record<number, string>> = {
  0: 'NULL',
  9: 'CHARACTER TABULATION',
  10: 'LINE FEED',
  13: 'CARRIAGE RETURN',
  27: 'ESCAPE',
  127: 'DELETE',
  133: 'NEXT LINE',
  173: 'SOFT HYPHEN',
  1564: 'ARABIC LETTER MARK',
  8203: 'ZERO WIDTH SPACE',
  8204: 'ZERO WIDTH NON-JOINER',
  8205: 'ZERO WIDTH JOINER',
  8206: 'LEFT-TO-RIGHT MARK',
  8207: 'RIGHT-TO-LEFT MARK',
  8232: 'LINE SEPARATOR',
  8233: 'PARAGRAPH SEPARATOR',
  8234: 'LEFT-TO-RIGHT EMBEDDING',
  8235: 'RIGHT-TO-LEFT EMBEDDING',
  8236: 'POP DIRECTIONAL FORMATTING',
  8237: 'LEFT-TO-RIGHT OVERRIDE',
  8238: 'RIGHT-TO-LEFT OVERRIDE',
  8288: 'WORD JOINER',
  8294: 'LEFT-TO-RIGHT ISOLATE',
  8295: 'RIGHT-TO-LEFT ISOLATE',
  8296: 'FIRST STRONG ISOLATE',
  8297: 'POP DIRECTIONAL ISOLATE',
  65279: 'ZERO WIDTH NO-BREAK SPACE',
};

/**
 * What is not printable text: control characters (Cc: C0, DEL, C1, NUL included), format
 * characters (Cf: bidi embeddings, overrides, isolates and marks, zero-width characters, the BOM,
 * soft hyphen, tag characters), line and paragraph separators (Zl, Zp) and unpaired surrogates
 * (Cs). One character at a time (`u` flag: a surrogate pair is one code point).
 */
const NOT_PRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/u;

const CATEGORY_NAMES: readonly [RegExp, string][] = [
  [/\p{Cc}/u, 'CONTROL CHARACTER'],
  [/\p{Cs}/u, 'UNPAIRED SURROGATE'],
  [/\p{Cf}/u, 'FORMAT CHARACTER'],
];

/** `U+202E (RIGHT-TO-LEFT OVERRIDE)`. */
export function describeCodePoint(codePoint: number): string {
  const hex = `U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}`;
  const char = String.fromCodePoint(codePoint);
  const name =
    CODE_POINT_NAMES[codePoint] ??
    CATEGORY_NAMES.find(([category]) => category.test(char))?.[1] ??
    'NON-PRINTABLE CHARACTER';
  return `${hex} (${name})`;
}

/**
 * Why `value` is not printable text in NFC, or undefined when it is. The index counts code points
 * (what a client sees as characters, whatever its string encoding). A string not in NFC is refused,
 * not normalised: what is stored is exactly what the client sent, so a resubmission compares equal
 * and a read returns the same bytes.
 */
export function unprintableTextProblem(value: string): string | undefined {
  let index = 0;
  for (const char of value) {
    if (NOT_PRINTABLE.test(char)) {
      return `contains ${describeCodePoint(char.codePointAt(0) ?? 0)} at index ${index}`;
    }
    index += 1;
  }
  if (value.normalize('NFC') !== value) {
    return 'is not in Unicode normalization form NFC (compose it, e.g. "e" + U+0301 as U+00E9, before sending)';
  }
  return undefined;
}

/**
 * The rule of every free-text string a client sends (ids, names, reasons): printable characters
 * only, in NFC. A zod check: `z.string().max(128).check(printableText())`; the issue is reported at
 * the field's path, so the 400 reads `customerId: contains U+202E (RIGHT-TO-LEFT OVERRIDE) at index 3`.
 */
export function printableText(): z.core.CheckFn<string> {
  return (payload) => {
    const problem = unprintableTextProblem(payload.value);
    if (problem !== undefined) {
      payload.issues.push({ code: 'custom', message: problem, input: payload.value });
    }
  };
}
