/**
 * The fixture files' layout (one line per resource, read back equal) and the acknowledgments file's
 * validation.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readAcknowledgments, toFixtureJson } from '../../../lib/release/released-templates';

describe('toFixtureJson', () => {
  const template = {
    Description: 'd',
    Resources: {
      A: { Type: 'AWS::SQS::Queue', Properties: { FifoQueue: true } },
      B: { Type: 'AWS::SNS::Topic' },
    },
    Outputs: { Url: { Value: { Ref: 'A' } } },
    Empty: {},
  };

  it('writes one line per resource and output, and reads back equal', () => {
    const text = toFixtureJson(template);
    expect(JSON.parse(text)).toEqual(template);
    expect(text.split('\n')).toEqual([
      '{',
      '  "Description": "d",',
      '  "Resources": {',
      '    "A": {"Type":"AWS::SQS::Queue","Properties":{"FifoQueue":true}},',
      '    "B": {"Type":"AWS::SNS::Topic"}',
      '  },',
      '  "Outputs": {',
      '    "Url": {"Value":{"Ref":"A"}}',
      '  },',
      '  "Empty": {}',
      '}',
      '',
    ]);
  });
});

describe('readAcknowledgments', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'acknowledgments-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = (content: string) => {
    const path = join(dir, `${Math.random()}.json`);
    writeFileSync(path, content);
    return path;
  };

  it('reads none from a missing file, and the entries of a list', () => {
    expect(readAcknowledgments(join(dir, 'missing.json'))).toEqual([]);
    const entry = { stack: 'S', logicalId: 'T', rule: 'deleted', reason: 'r' };
    expect(readAcknowledgments(file(JSON.stringify([entry])))).toEqual([entry]);
  });

  it('names the file and what is missing', () => {
    const notList = file('{}');
    expect(() => readAcknowledgments(notList)).toThrow(`${notList}: expected a list`);
    const partial = file(JSON.stringify([{ stack: 'S', logicalId: 'T', rule: 'deleted' }]));
    expect(() => readAcknowledgments(partial)).toThrow(`${partial}: entry 0 has no reason`);
  });
});
