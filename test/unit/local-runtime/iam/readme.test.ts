/**
 * lib/local-runtime/iam/README.md tells users which condition keys and operators a policy may use:
 * it must name every key of the catalogue (condition-keys.ts) and every operator the evaluator knows
 * (condition-operators.ts), so adding one without documenting it fails here.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { knownConditionKeys } from '../../../../lib/local-runtime/iam/condition-keys';
import { KNOWN_OPERATORS } from '../../../../lib/local-runtime/iam/condition-operators';

const README = readFileSync(join(__dirname, '../../../../lib/local-runtime/iam/README.md'), 'utf8');
/** The names the README writes in code spans, lower-cased (keys are case-insensitive). */
const documented = new Set([...README.matchAll(/`([^`\s]+)`/g)].map(([, name = '']) => name.toLowerCase()));

describe('the IAM README', () => {
  it.each(knownConditionKeys().map(([key]) => key))('names the condition key %s', (key) => {
    expect(documented).toContain(key);
  });

  it.each(KNOWN_OPERATORS)('names the condition operator %s', (operator) => {
    expect(documented).toContain(operator.toLowerCase());
  });
});
