/**
 * The input text rules every API shares (lambdas/shared): free text is printable and in NFC
 * (printableText), a JSON body has no duplicate key (findDuplicateKey, inside jsonParser).
 */
import * as z from 'zod';
import {
  duplicateKeyMessage,
  findDuplicateKey,
  jsonParser,
  type ParseOutcome,
} from '../../../lambdas/shared/parse';
import { describeCodePoint, printableText, unprintableTextProblem } from '../../../lambdas/shared/validation';

const Name = z.object({ name: z.string().min(1).max(64).check(printableText()) }).strict();
const parseName = jsonParser(Name);

function failureOf<T>(outcome: ParseOutcome<T>) {
  if (outcome.ok) throw new Error('expected the text to be rejected');
  return outcome;
}

describe('printableText', () => {
  it.each<[string, string, string]>([
    ['NUL', 'ab\u0000c', 'U+0000 (NULL) at index 2'],
    ['a C0 control (ESC)', '\u001b[31mred', 'U+001B (ESCAPE) at index 0'],
    ['a tab', 'a\tb', 'U+0009 (CHARACTER TABULATION) at index 1'],
    ['a line feed', 'a\nb', 'U+000A (LINE FEED) at index 1'],
    ['DEL', 'a\u007f', 'U+007F (DELETE) at index 1'],
    ['a C1 control (NEL)', 'a\u0085b', 'U+0085 (NEXT LINE) at index 1'],
    ['a C1 control (CSI)', 'a\u009bb', 'U+009B (CONTROL CHARACTER) at index 1'],
    ['LRE', 'x\u202ay', 'U+202A (LEFT-TO-RIGHT EMBEDDING) at index 1'],
    ['RLE', 'x\u202by', 'U+202B (RIGHT-TO-LEFT EMBEDDING) at index 1'],
    ['PDF', 'x\u202cy', 'U+202C (POP DIRECTIONAL FORMATTING) at index 1'],
    ['LRO', 'x\u202dy', 'U+202D (LEFT-TO-RIGHT OVERRIDE) at index 1'],
    ['RLO', 'abc\u202Efed', 'U+202E (RIGHT-TO-LEFT OVERRIDE) at index 3'],
    ['LRI', 'x\u2066y', 'U+2066 (LEFT-TO-RIGHT ISOLATE) at index 1'],
    ['RLI', 'x\u2067y', 'U+2067 (RIGHT-TO-LEFT ISOLATE) at index 1'],
    ['FSI', 'x\u2068y', 'U+2068 (FIRST STRONG ISOLATE) at index 1'],
    ['PDI', 'x\u2069y', 'U+2069 (POP DIRECTIONAL ISOLATE) at index 1'],
    ['RLM', 'x\u200fy', 'U+200F (RIGHT-TO-LEFT MARK) at index 1'],
    ['ZWSP', 'cust\u200bomer', 'U+200B (ZERO WIDTH SPACE) at index 4'],
    ['ZWNJ', 'x\u200cy', 'U+200C (ZERO WIDTH NON-JOINER) at index 1'],
    ['ZWJ', 'x\u200dy', 'U+200D (ZERO WIDTH JOINER) at index 1'],
    ['WORD JOINER', 'x\u2060y', 'U+2060 (WORD JOINER) at index 1'],
    ['a BOM', '\ufeffsku', 'U+FEFF (ZERO WIDTH NO-BREAK SPACE) at index 0'],
    ['LINE SEPARATOR', 'x\u2028y', 'U+2028 (LINE SEPARATOR) at index 1'],
    ['a tag character (astral, format)', 'x\u{E0041}y', 'U+E0041 (FORMAT CHARACTER) at index 1'],
    ['an unpaired surrogate', 'x\ud800y', 'U+D800 (UNPAIRED SURROGATE) at index 1'],
    [
      'a code point index after an astral character',
      '😀\u202e',
      'U+202E (RIGHT-TO-LEFT OVERRIDE) at index 1',
    ],
  ])('refuses %s, naming the code point and its index', (_what, value, expected) => {
    expect(unprintableTextProblem(value)).toBe(`contains ${expected}`);
    expect(failureOf(parseName(JSON.stringify({ name: value }))).errors).toEqual([
      { path: 'name', message: `contains ${expected}` },
    ]);
  });

  it('refuses a string that is not in NFC (NFD "é" is e + U+0301), and does not normalise it', () => {
    const nfd = 'caf\u0065\u0301';
    expect(nfd.normalize('NFC')).not.toBe(nfd);
    expect(failureOf(parseName(JSON.stringify({ name: nfd }))).errors).toEqual([
      { path: 'name', message: expect.stringMatching(/^is not in Unicode normalization form NFC/) },
    ]);
  });

  it.each([
    ['ASCII', 'customer-1 (Acme, Inc.)'],
    ['NFC "é" (U+00E9)', 'caf\u00e9'],
    ['a space and punctuation', 'A b.c/d_e~f'],
    ['non-Latin scripts', 'Zoë Ωμέγα 東京 مرحبا'],
    ['an astral emoji', 'order 😀'],
  ])('accepts printable text in NFC: %s', (_what, value) => {
    expect(unprintableTextProblem(value)).toBeUndefined();
    expect(parseName(JSON.stringify({ name: value }))).toEqual({ ok: true, value: { name: value } });
  });

  it('names code points by category when it has no name for them', () => {
    expect(describeCodePoint(0x01)).toBe('U+0001 (CONTROL CHARACTER)');
    expect(describeCodePoint(0x0600)).toBe('U+0600 (FORMAT CHARACTER)');
  });
});

describe('duplicate JSON keys', () => {
  it.each<[string, string, { path: readonly PropertyKey[]; key: string } | undefined]>([
    ['none', '{"a":1,"b":{"a":2},"c":[{"a":3},{"a":4}]}', undefined],
    ['top level', '{"sku":"a","sku":"b"}', { path: [], key: 'sku' }],
    ['nested object', '{"a":{"x":1,"y":2,"x":3}}', { path: ['a'], key: 'x' }],
    [
      'object in an array',
      '{"items":[{"sku":"a"},{"sku":"b","sku":"c"}]}',
      { path: ['items', 1], key: 'sku' },
    ],
    ['top-level array', '[{"a":1},{"a":1,"a":2}]', { path: [1], key: 'a' }],
    ['escaped key equal to a plain one', '{"sku":"a","s\\u006bu":"b"}', { path: [], key: 'sku' }],
    ['keys that differ only once decoded', '{"a\\"b":1,"a\\u0022b":2}', { path: [], key: 'a"b' }],
    ['same key in sibling objects is fine', '{"a":{"k":1},"b":{"k":1}}', undefined],
    ['brackets and quotes inside strings are text', '{"a":"{\\"a\\":1,","b":"[}]"}', undefined],
    ['after nested arrays', '{"m":[[1,2],[3]],"n":{"o":[{"p":1,"p":2}]}}', { path: ['n', 'o', 0], key: 'p' }],
  ])('%s', (_what, text, expected) => {
    JSON.parse(text); // the scanner's precondition: valid JSON
    expect(findDuplicateKey(text)).toEqual(expected);
  });

  it('is refused by jsonParser, naming the key at its path, before the schema is applied', () => {
    const Items = z.object({ items: z.array(z.object({ sku: z.string() }).strict()) }).strict();
    const failure = failureOf(jsonParser(Items)('{"items":[{"sku":"a","s\\u006bu":"b"}]}'));
    expect(failure.problem).toBe('invalid');
    expect(failure.errors).toEqual([{ path: 'items[0].sku', message: duplicateKeyMessage('sku') }]);
    expect(failure.summary).toContain('"sku" appears more than once');
    expect(failureOf(parseName('{"name":"a","name":"b"}')).errors).toEqual([
      { path: 'name', message: duplicateKeyMessage('name') },
    ]);
  });

  it('scans a deeply nested body without exhausting the stack', () => {
    const depth = 100_000;
    const text = `${'['.repeat(depth)}{"a":1,"a":2}${']'.repeat(depth)}`;
    expect(findDuplicateKey(text)?.key).toBe('a');
  });
});
