import * as z from 'zod';
import { jsonParser, type ParseOutcome } from '../../../lambdas/shared/parse';
import { BODY_PATH, describeFieldErrors, MAX_REPORTED_ERRORS } from '../../../lambdas/shared/validation';

const Item = z.object({ sku: z.string().min(1), quantity: z.number().int().min(1) }).strict();
const Order = z
  .object({
    orderId: z.string().regex(/^[a-z0-9-]+$/, 'must be lower-case letters, digits and -'),
    items: z.array(Item).min(1),
    note: z.string().optional(),
  })
  .strict();

const parseOrder = jsonParser(Order);
const valid = { orderId: 'o-1', items: [{ sku: 'A', quantity: 2 }] };

function failureOf<T>(outcome: ParseOutcome<T>) {
  if (outcome.ok) throw new Error('expected the text to be rejected');
  return outcome;
}

describe('jsonParser', () => {
  it('returns the typed value of valid JSON, with what the schema produces', () => {
    expect(parseOrder(JSON.stringify(valid))).toEqual({ ok: true, value: valid });
  });

  it('reports text that is not JSON with a fixed message that quotes nothing of the text; the JSON error goes to the summary (logs) only', () => {
    const failure = failureOf(parseOrder('{"orderId": "secret-value'));
    expect(failure.problem).toBe('not-json');
    expect(failure.errors).toEqual([{ path: BODY_PATH, message: 'must be valid JSON' }]);
    expect(JSON.stringify(failure.errors)).not.toContain('secret');
    expect(failure.summary).toMatch(/JSON/);
    expect(failure.summary).not.toContain(BODY_PATH);
  });

  it('names each problem of valid JSON by its path, the way the API reports them', () => {
    const failure = failureOf(
      parseOrder(
        JSON.stringify({ items: [{ sku: 'A', quantity: 0, colour: 'red' }], orderId: 'O 1', coupon: 'x' }),
      ),
    );
    expect(failure.problem).toBe('invalid');
    expect(failure.errors).toEqual(
      expect.arrayContaining([
        { path: 'orderId', message: 'must be lower-case letters, digits and -' },
        { path: 'items[0].quantity', message: expect.stringMatching(/>=1/) },
        { path: 'items[0].colour', message: 'is not an allowed field' },
        { path: 'coupon', message: 'is not an allowed field' },
      ]),
    );
    expect(failure.errors).toHaveLength(4);
    expect(failure.summary).toBe(describeFieldErrors(failure.errors));
    expect(failure.summary).toContain('items[0].colour: is not an allowed field');
  });

  it('says "is required" for a missing field and keeps the type message for a wrong one', () => {
    const failure = failureOf(parseOrder(JSON.stringify({ items: [{ sku: 'A', quantity: '2' }] })));
    expect(failure.errors).toEqual([
      { path: 'orderId', message: 'is required' },
      { path: 'items[0].quantity', message: expect.stringMatching(/expected number, received string/) },
    ]);
  });

  it('reports JSON of the wrong kind at the root', () => {
    expect(failureOf(parseOrder('[1]')).errors).toEqual([
      { path: BODY_PATH, message: expect.stringMatching(/expected object, received array/) },
    ]);
    expect(failureOf(parseOrder('null')).errors).toEqual([
      { path: BODY_PATH, message: expect.stringMatching(/expected object/) },
    ]);
  });

  it('shows paths under a prefix, or the root under a label of its own', () => {
    const underBody = jsonParser(Order, { prefix: ['body'] });
    expect(failureOf(underBody('{')).errors).toEqual([
      { path: 'body', message: expect.stringMatching(/^must be valid JSON/) },
    ]);
    expect(
      failureOf(underBody(JSON.stringify({ ...valid, items: [{ sku: '', quantity: 1 }] }))).errors,
    ).toEqual([{ path: 'body.items[0].sku', message: expect.stringMatching(/>=1 characters/) }]);
    const labelled = jsonParser(Order, { rootLabel: '(root)' });
    expect(failureOf(labelled('"text"')).summary).toMatch(/^\(root\): .*expected object/);
  });

  it('keeps refinement messages and their paths', () => {
    const Window = z
      .object({ from: z.number(), to: z.number() })
      .refine((w) => w.to > w.from, { path: ['to'], message: 'must be after from' });
    expect(failureOf(jsonParser(Window)('{"from":5,"to":1}')).errors).toEqual([
      { path: 'to', message: 'must be after from' },
    ]);
  });

  it(`reports at most ${MAX_REPORTED_ERRORS} problems however bad the input`, () => {
    const items = Array.from({ length: 60 }, () => ({ sku: '', quantity: 0 }));
    expect(failureOf(parseOrder(JSON.stringify({ ...valid, items }))).errors).toHaveLength(
      MAX_REPORTED_ERRORS,
    );
  });
});
