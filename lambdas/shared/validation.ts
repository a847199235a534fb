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

/** `['items', 0, 'quantity']` -> `items[0].quantity`; the root -> `(body)`. */
export function formatIssuePath(path: readonly PropertyKey[]): string {
  if (path.length === 0) {
    return BODY_PATH;
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

/**
 * Maps schema issues to `{path, message}` pairs a client can act on: one entry per unknown field
 * (named by its own path), "is required" for a missing field instead of "expected string, received
 * undefined", and the schema's message otherwise.
 */
export function fieldErrorsFromIssues(issues: readonly ValidationIssue[], input: unknown): FieldError[] {
  const errors: FieldError[] = [];
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys' && issue.keys && issue.keys.length > 0) {
      for (const key of issue.keys) {
        errors.push({ path: formatIssuePath([...issue.path, key]), message: 'is not an allowed field' });
      }
    } else if (
      issue.code === 'invalid_type' &&
      issue.path.length > 0 &&
      valueAt(input, issue.path) === undefined
    ) {
      errors.push({ path: formatIssuePath(issue.path), message: 'is required' });
    } else {
      errors.push({ path: formatIssuePath(issue.path), message: issue.message });
    }
  }
  return errors.slice(0, MAX_REPORTED_ERRORS);
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
