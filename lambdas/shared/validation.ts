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
