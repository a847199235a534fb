import { jsonParser } from '../../shared/parse';
import { BODY_PATH, type FieldError } from '../../shared/validation';
import {
  MAX_ORDER_BODY_BYTES,
  ORDER_ID_PATTERN,
  type SubmitOrderRequest,
  SubmitOrderRequestSchema,
} from '../contracts';

const parseOrderJson = jsonParser(SubmitOrderRequestSchema);

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
  const parsed = parseOrderJson(text);
  if (!parsed.ok) {
    return invalid(
      parsed.problem === 'not-json' ? 'Request body is not valid JSON' : 'Request body is not a valid order',
      parsed.errors,
    );
  }
  return { ok: true, request: parsed.value, rawBody: text };
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
