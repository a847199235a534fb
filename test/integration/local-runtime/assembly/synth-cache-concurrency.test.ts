/**
 * Two processes (two Jest workers, or npm start and a test) asking the synth cache for the same
 * assembly at once: one synthesizes, the other waits for it and reuses it; both see a complete entry.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const CLIENT = resolve(__dirname, '../fixtures/synth-cache-client.ts');

function client(args: string[]): Promise<{ directory: string; hit: boolean }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CLIENT, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolvePromise(JSON.parse(stdout)) : reject(new Error(`client exited ${code}: ${stderr}`)),
    );
  });
}

describe('synth cache under concurrent callers', () => {
  let work: string;
  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'synth-cache-concurrency-'));
  });
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('produces once for two processes asking at once; both get the complete entry', async () => {
    const cache = join(work, 'cache');
    const runs = join(work, 'runs.log');
    const key = 'cd'.repeat(16);
    // The producer takes 3 s: long enough for the second process to find the lock taken.
    const results = await Promise.all([
      client([cache, key, runs, '3000']),
      client([cache, key, runs, '3000']),
    ]);

    expect(readFileSync(runs, 'utf8').trim().split('\n')).toHaveLength(1);
    expect(results.map((r) => r.hit).sort()).toEqual([false, true]);
    expect(results[0]?.directory).toBe(results[1]?.directory);
    const manifest = JSON.parse(readFileSync(join(results[0]?.directory as string, 'manifest.json'), 'utf8'));
    expect(typeof manifest.producer).toBe('number');
    expect(readdirSync(cache)).toEqual([key]);
  });
});
