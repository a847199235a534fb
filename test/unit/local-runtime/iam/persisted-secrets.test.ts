/** Secrets kept per data directory (lib/local-runtime/iam/persisted-secrets.ts): API keys and local IAM users' secrets. */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PersistedSecrets } from '../../../../lib/local-runtime/iam/persisted-secrets';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'secrets-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('PersistedSecrets', () => {
  it('makes a secret once per name and keeps it in the file, readable by the developer only', () => {
    const file = join(dir, 'nested', 'secrets.json');
    const first = new PersistedSecrets(file, 'probe secrets');
    const secret = first.of('web-shop');
    expect(secret).toMatch(/^[A-Za-z0-9_-]{40}$/);
    expect(first.of('web-shop')).toBe(secret);
    expect(first.of('call-center')).not.toBe(secret);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // A restart on the same data directory: the same secrets.
    const again = new PersistedSecrets(file, 'probe secrets');
    expect(again.known('web-shop')).toBe(secret);
    expect(again.known('nobody')).toBeUndefined();
  });

  it('makes the folders it creates 0700', () => {
    const file = join(dir, 'data', 'iam', 'secrets.json');
    new PersistedSecrets(file, 'probe secrets').of('web-shop');
    expect(statSync(join(dir, 'data', 'iam')).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, 'data')).mode & 0o777).toBe(0o700);
  });

  it('narrows a file an earlier start left 0644 in a 0755 folder, when it writes and when it only reads', () => {
    const folder = join(dir, 'iam');
    const file = join(folder, 'secrets.json');
    const widen = () => {
      chmodSync(folder, 0o755);
      chmodSync(file, 0o644);
    };
    mkdirSync(folder, { mode: 0o755 });
    writeFileSync(file, JSON.stringify({ 'web-shop': 'kept-secret' }), { mode: 0o644 });
    widen();
    // Only read: every secret asked for is known.
    expect(new PersistedSecrets(file, 'probe secrets').of('web-shop')).toBe('kept-secret');
    expect([statSync(file).mode & 0o777, statSync(folder).mode & 0o777]).toEqual([0o600, 0o700]);
    widen();
    new PersistedSecrets(file, 'probe secrets').of('call-center');
    expect([statSync(file).mode & 0o777, statSync(folder).mode & 0o777]).toEqual([0o600, 0o700]);
  });

  it('keeps secrets in memory only without a file: each start gets fresh ones', () => {
    const secret = new PersistedSecrets(undefined, 'probe secrets').of('web-shop');
    expect(new PersistedSecrets(undefined, 'probe secrets').known('web-shop')).toBeUndefined();
    expect(secret).toHaveLength(40);
  });

  it('refuses a file that is not a JSON object, naming it and what it should hold', () => {
    const file = join(dir, 'secrets.json');
    writeFileSync(file, '["not", "an object"]');
    expect(() => new PersistedSecrets(file, 'API keys')).toThrow(
      `${file} is not a JSON object of API keys; delete it to generate new ones`,
    );
  });
});
