import {
  type FieldError,
  MAX_ORDER_BODY_BYTES,
  ORDER_ID_PATTERN,
  type SubmitOrderRequest,
  SubmitOrderRequestSchema,
} from '../contracts';

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

export type ParsedOrderRequest =
  | { readonly ok: true; readonly request: SubmitOrderRequest; readonly rawBody: string }
  | { readonly ok: false; readonly message: string; readonly errors: readonly FieldError[] };

/**
 * Turns an HTTP body into a valid order request or a list of problems. The size is checked before
 * any JSON parsing so an oversized body costs no parse time.
 */
export function parseOrderRequestBody(
  body: string | null | undefined,
  isBase64Encoded: boolean,
  maxBytes: number = MAX_ORDER_BODY_BYTES,
): ParsedOrderRequest {
  if (body === null || body === undefined || body.length === 0) {
    return invalid('Request body is required', [{ path: BODY_PATH, message: 'is required' }]);
  }
  const tooLarge = () =>
    invalid(`Request body is larger than ${maxBytes} bytes`, [
      { path: BODY_PATH, message: `must be at most ${maxBytes} bytes` },
    ]);
  // Base64 never shrinks data by more than 3/4: a long encoded body is rejected without decoding it.
  if (isBase64Encoded && Math.floor((body.length * 3) / 4) > maxBytes + 2) {
    return tooLarge();
  }
  const text = isBase64Encoded ? Buffer.from(body, 'base64').toString('utf8') : body;
  if (Buffer.byteLength(text, 'utf8') > maxBytes) {
    return tooLarge();
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return invalid('Request body is not valid JSON', [
      { path: BODY_PATH, message: `must be valid JSON (${(error as Error).message})` },
    ]);
  }
  const parsed = SubmitOrderRequestSchema.safeParse(json);
  if (!parsed.success) {
    return invalid('Request body is not a valid order', fieldErrorsFromIssues(parsed.error.issues, json));
  }
  return { ok: true, request: parsed.data, rawBody: text };
}

export type ParsedOrderId =
  | { readonly ok: true; readonly orderId: string }
  | { readonly ok: false; readonly message: string; readonly errors: readonly FieldError[] };

/** Validates the {orderId} path parameter with the same rule as the POST body. */
export function parseOrderIdParameter(value: string | null | undefined): ParsedOrderId {
  if (value === null || value === undefined || value === '') {
    return invalid('orderId is required', [{ path: 'orderId', message: 'is required' }]);
  }
  if (!ORDER_ID_PATTERN.test(value)) {
    return invalid('orderId is not valid', [
      { path: 'orderId', message: 'must be 1-64 characters of A-Z a-z 0-9 _ -' },
    ]);
  }
  return { ok: true, orderId: value };
}

function invalid(
  message: string,
  errors: readonly FieldError[],
): { ok: false; message: string; errors: readonly FieldError[] } {
  return { ok: false, message, errors };
}
