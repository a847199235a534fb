import { MAX_ORDER_BODY_BYTES } from '../../../lambdas/scheduler-agent-supervisor/contracts';
import {
  parseOrderIdParameter,
  parseOrderRequestBody,
} from '../../../lambdas/scheduler-agent-supervisor/domain/validation';
import {
  BODY_PATH,
  fieldErrorsFromIssues,
  formatIssuePath,
  MAX_REPORTED_ERRORS,
} from '../../../lambdas/shared/validation';

const valid = {
  orderId: 'order-1',
  customerId: 'customer-1',
  items: [{ sku: 'SKU-1', quantity: 2 }],
  totalCents: 1999,
  currency: 'EUR',
};

function parse(body: unknown) {
  return parseOrderRequestBody(typeof body === 'string' ? body : JSON.stringify(body), false);
}

function errorsOf(body: unknown) {
  const result = parse(body);
  if (result.ok) {
    throw new Error('expected the body to be rejected');
  }
  return result.errors;
}

describe('formatIssuePath', () => {
  it.each<[PropertyKey[], string]>([
    [[], BODY_PATH],
    [['orderId'], 'orderId'],
    [['items', 0], 'items[0]'],
    [['items', 0, 'quantity'], 'items[0].quantity'],
    [['items', 12, 'sku'], 'items[12].sku'],
    [['a b'], '["a b"]'],
    [['items', 0, 'x-y'], 'items[0]["x-y"]'],
  ])('formats %j as %s', (path, expected) => {
    expect(formatIssuePath(path)).toBe(expected);
  });
});

describe('fieldErrorsFromIssues', () => {
  it('names each unknown field by its own path', () => {
    const errors = fieldErrorsFromIssues(
      [
        { code: 'unrecognized_keys', path: [], keys: ['foo', 'bar'], message: 'Unrecognized keys' },
        { code: 'unrecognized_keys', path: ['items', 1], keys: ['colour'], message: 'Unrecognized key' },
      ],
      {},
    );
    expect(errors).toEqual([
      { path: 'foo', message: 'is not an allowed field' },
      { path: 'bar', message: 'is not an allowed field' },
      { path: 'items[1].colour', message: 'is not an allowed field' },
    ]);
  });

  it('says "is required" for a missing field and keeps the schema message for a wrong one', () => {
    const errors = fieldErrorsFromIssues(
      [
        { code: 'invalid_type', path: ['customerId'], message: 'expected string, received undefined' },
        { code: 'invalid_type', path: ['totalCents'], message: 'expected number, received string' },
      ],
      { totalCents: '12' },
    );
    expect(errors).toEqual([
      { path: 'customerId', message: 'is required' },
      { path: 'totalCents', message: 'expected number, received string' },
    ]);
  });

  it(`reports at most ${MAX_REPORTED_ERRORS} errors`, () => {
    const issues = Array.from({ length: 60 }, (_, index) => ({
      code: 'too_small',
      path: ['items', index, 'quantity'],
      message: 'too small',
    }));
    expect(fieldErrorsFromIssues(issues, {})).toHaveLength(MAX_REPORTED_ERRORS);
  });
});

describe('parseOrderRequestBody', () => {
  it('accepts a valid order and returns the decoded body', () => {
    const body = JSON.stringify(valid);
    expect(parseOrderRequestBody(body, false)).toEqual({ ok: true, request: valid, rawBody: body });
  });

  it('decodes a base64 body before validating it', () => {
    const body = JSON.stringify(valid);
    expect(parseOrderRequestBody(Buffer.from(body).toString('base64'), true)).toEqual({
      ok: true,
      request: valid,
      rawBody: body,
    });
  });

  it.each<[string, unknown, { path: string; message: RegExp }]>([
    ['bad JSON', '{"orderId": ', { path: BODY_PATH, message: /must be valid JSON/ }],
    ['a JSON array', [valid], { path: BODY_PATH, message: /expected object/ }],
    ['a JSON string', '"order"', { path: BODY_PATH, message: /expected object/ }],
    [
      'a missing field',
      { ...valid, customerId: undefined },
      { path: 'customerId', message: /^is required$/ },
    ],
    ['a wrong type', { ...valid, totalCents: '1999' }, { path: 'totalCents', message: /expected number/ }],
    ['a fractional amount', { ...valid, totalCents: 19.99 }, { path: 'totalCents', message: /int/ }],
    ['an unknown field', { ...valid, discount: 5 }, { path: 'discount', message: /not an allowed field/ }],
    [
      'an unknown item field',
      { ...valid, items: [{ sku: 'S', quantity: 1, gift: true }] },
      { path: 'items[0].gift', message: /not an allowed field/ },
    ],
    ['a bad orderId', { ...valid, orderId: 'has space' }, { path: 'orderId', message: /1-64 characters/ }],
    [
      'a too long orderId',
      { ...valid, orderId: 'x'.repeat(65) },
      { path: 'orderId', message: /1-64 characters/ },
    ],
    ['empty items', { ...valid, items: [] }, { path: 'items', message: />=1/ }],
    [
      '51 items',
      { ...valid, items: Array.from({ length: 51 }, (_, i) => ({ sku: `S${i}`, quantity: 1 })) },
      { path: 'items', message: /<=50/ },
    ],
    [
      'a zero quantity',
      { ...valid, items: [{ sku: 'S', quantity: 0 }] },
      { path: 'items[0].quantity', message: />=1/ },
    ],
    [
      'a string quantity',
      { ...valid, items: [{ sku: 'S', quantity: '2' }] },
      { path: 'items[0].quantity', message: /expected number/ },
    ],
    ['a lower-case currency', { ...valid, currency: 'eur' }, { path: 'currency', message: /3-letter/ }],
    [
      'a bidi override in customerId',
      { ...valid, customerId: 'abc\u202Efed' },
      { path: 'customerId', message: /^contains U\+202E \(RIGHT-TO-LEFT OVERRIDE\) at index 3$/ },
    ],
    [
      'a C1 control in a sku',
      { ...valid, items: [{ sku: 'S\u0085', quantity: 1 }] },
      { path: 'items[0].sku', message: /U\+0085 \(NEXT LINE\) at index 1/ },
    ],
    [
      'a sku not in NFC',
      { ...valid, items: [{ sku: 'e\u0301', quantity: 1 }] },
      { path: 'items[0].sku', message: /NFC/ },
    ],
    [
      'a duplicate key',
      '{"orderId":"o","orderId":"p"}',
      { path: 'orderId', message: /duplicate key: "orderId"/ },
    ],
  ])('rejects %s naming the field', (_case, body, expected) => {
    const errors = errorsOf(body);
    expect(errors).toContainEqual({ path: expected.path, message: expect.stringMatching(expected.message) });
  });

  it.each([undefined, null, ''])('rejects a missing body (%p)', (body) => {
    const result = parseOrderRequestBody(body, false);
    expect(result).toEqual({
      ok: false,
      message: 'Request body is required',
      errors: [{ path: BODY_PATH, message: 'is required' }],
    });
  });

  it('accepts a body of exactly the limit and rejects one byte more, counting bytes not characters', () => {
    const base = JSON.stringify({ ...valid, customerId: '' });
    const fill = (bytes: number, char: string) => {
      const padding = char.repeat(Math.floor((bytes - base.length) / Buffer.byteLength(char)));
      return JSON.stringify({ ...valid, customerId: padding });
    };
    const atLimit = fill(MAX_ORDER_BODY_BYTES, 'a');
    expect(Buffer.byteLength(atLimit)).toBe(MAX_ORDER_BODY_BYTES);
    // customerId is at most 128 characters, so an at-limit body is still invalid, but not for its size.
    expect(errorsOf(atLimit)).toEqual([{ path: 'customerId', message: expect.stringMatching(/<=128/) }]);
    const overLimit = `${atLimit} `;
    expect(errorsOf(overLimit)).toEqual([
      { path: BODY_PATH, message: `must be at most ${MAX_ORDER_BODY_BYTES} bytes` },
    ]);
    // Multi-byte characters: fewer characters than the limit, more bytes.
    const multiByte = fill(MAX_ORDER_BODY_BYTES + 3, 'é');
    expect(multiByte.length).toBeLessThan(MAX_ORDER_BODY_BYTES);
    expect(errorsOf(multiByte)).toEqual([
      { path: BODY_PATH, message: `must be at most ${MAX_ORDER_BODY_BYTES} bytes` },
    ]);
  });

  it('rejects an oversized base64 body by its decoded size', () => {
    const oversized = JSON.stringify({ ...valid, customerId: 'a'.repeat(MAX_ORDER_BODY_BYTES) });
    const result = parseOrderRequestBody(Buffer.from(oversized).toString('base64'), true);
    expect(result).toMatchObject({ ok: false, errors: [{ path: BODY_PATH, message: /at most/ }] });
    const small = Buffer.from(JSON.stringify(valid)).toString('base64');
    expect(parseOrderRequestBody(small, true, 4096)).toMatchObject({ ok: true });
  });

  it('checks the size before parsing, so an oversized non-JSON body is reported as oversized', () => {
    const result = parseOrderRequestBody('{'.repeat(MAX_ORDER_BODY_BYTES + 1), false);
    expect(result).toMatchObject({ ok: false, errors: [{ path: BODY_PATH, message: /at most/ }] });
  });
});

describe('parseOrderIdParameter', () => {
  it.each(['order-1', 'A_b-9', 'x'.repeat(64)])('accepts %s', (id) => {
    expect(parseOrderIdParameter(id)).toEqual({ ok: true, orderId: id });
  });

  it.each([undefined, null, ''])('requires the id (%p)', (id) => {
    expect(parseOrderIdParameter(id)).toMatchObject({
      ok: false,
      errors: [{ path: 'orderId', message: 'is required' }],
    });
  });

  it.each(['has space', 'semi;colon', 'x'.repeat(65), 'ü'])('rejects %s', (id) => {
    expect(parseOrderIdParameter(id)).toMatchObject({ ok: false, errors: [{ path: 'orderId' }] });
  });
});
