/** Generated API keys: random, kept per data directory, fresh without one. */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GeneratedApiKeys } from '../../../../lib/local-runtime/apigateway/api-keys';

describe('generated API keys', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'api-keys-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('generates a random 40-character key per resource', () => {
    const keys = new GeneratedApiKeys(undefined);
    const first = keys.valueOf('Stack/Key');
    expect(first).toMatch(/^[A-Za-z0-9_-]{40}$/);
    expect(keys.valueOf('Stack/Key')).toBe(first);
    expect(keys.valueOf('Stack/Other')).not.toBe(first);
  });

  it('keeps the keys of a data directory across restarts, readable by the owner only', () => {
    const first = new GeneratedApiKeys(dataDir).valueOf('Stack/Key');
    expect(new GeneratedApiKeys(dataDir).valueOf('Stack/Key')).toBe(first);
    const file = join(dataDir, 'api-gateway', 'api-keys.json');
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ 'Stack/Key': first });
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('gives each start without a data directory a fresh key', () => {
    const keys = new Set(
      Array.from({ length: 5 }, () => new GeneratedApiKeys(undefined).valueOf('Stack/Key')),
    );
    expect(keys.size).toBe(5);
    const other = mkdtempSync(join(tmpdir(), 'api-keys-'));
    try {
      expect(new GeneratedApiKeys(other).valueOf('Stack/Key')).not.toBe(
        new GeneratedApiKeys(dataDir).valueOf('Stack/Key'),
      );
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });
});
