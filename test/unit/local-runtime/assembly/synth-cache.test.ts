/**
 * The local synth cache (lib/local-runtime/assembly/synth-cache.ts): the key changes whenever an input of
 * the synthesis changes, every source the app and its handlers import is such an input, a failed
 * producer leaves nothing behind, callers get copies, and old entries are pruned.
 */
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { build } from 'esbuild';
import {
  copyEntry,
  MAX_ENTRIES,
  obtainEntry,
  SYNTH_INPUTS,
  synthesisKey,
} from '../../../../lib/local-runtime/assembly/synth-cache';

const ROOT = resolve(__dirname, '../../../..');
const ARGS = ['-c', 'profile=local'];

let work: string;
beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'synth-cache-'));
});
afterEach(() => rmSync(work, { recursive: true, force: true }));

/** A tiny project with one file in each input directory and the root input files. */
function fixtureProject(): string {
  const root = join(work, 'project');
  const files: Record<string, string> = {
    'bin/app.ts': 'app',
    'lib/stack.ts': 'stack',
    'lambdas/wing/handlers/submit.ts': 'handler',
    'package.json': '{}',
    'package-lock.json': '{"lockfileVersion":3}',
    'node_modules/.package-lock.json': '{"installed":1}',
    'cdk.json': '{"app":"x"}',
    'tsconfig.json': '{}',
    'test/unit/a.test.ts': 'a test',
    'README.md': 'readme',
  };
  for (const [file, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, file)), { recursive: true });
    writeFileSync(join(root, file), content);
  }
  return root;
}

describe('synthesisKey', () => {
  it('is stable for the same inputs and changes with every input that can change the assembly', () => {
    const root = fixtureProject();
    const base = synthesisKey(root, ARGS, {});
    expect(synthesisKey(root, ARGS, {})).toBe(base);

    const changes: [string, () => void, () => void][] = [
      [
        'a lib file edited',
        () => writeFileSync(join(root, 'lib/stack.ts'), 'stack2'),
        () => writeFileSync(join(root, 'lib/stack.ts'), 'stack'),
      ],
      [
        'a handler edited',
        () => writeFileSync(join(root, 'lambdas/wing/handlers/submit.ts'), 'h2'),
        () => writeFileSync(join(root, 'lambdas/wing/handlers/submit.ts'), 'handler'),
      ],
      [
        'a bin file edited',
        () => writeFileSync(join(root, 'bin/app.ts'), 'app2'),
        () => writeFileSync(join(root, 'bin/app.ts'), 'app'),
      ],
      [
        'a file added under lambdas/',
        () => writeFileSync(join(root, 'lambdas/wing/new.ts'), ''),
        () => rmSync(join(root, 'lambdas/wing/new.ts')),
      ],
      [
        'a file deleted',
        () => rmSync(join(root, 'lib/stack.ts')),
        () => writeFileSync(join(root, 'lib/stack.ts'), 'stack'),
      ],
      [
        'a file renamed',
        () => renameSync(join(root, 'lib/stack.ts'), join(root, 'lib/stack2.ts')),
        () => renameSync(join(root, 'lib/stack2.ts'), join(root, 'lib/stack.ts')),
      ],
      [
        'the lockfile changed',
        () => writeFileSync(join(root, 'package-lock.json'), '{"lockfileVersion":4}'),
        () => writeFileSync(join(root, 'package-lock.json'), '{"lockfileVersion":3}'),
      ],
      [
        'node_modules reinstalled differently',
        () => writeFileSync(join(root, 'node_modules/.package-lock.json'), '{"installed":2}'),
        () => writeFileSync(join(root, 'node_modules/.package-lock.json'), '{"installed":1}'),
      ],
      [
        'cdk.json changed',
        () => writeFileSync(join(root, 'cdk.json'), '{"app":"y"}'),
        () => writeFileSync(join(root, 'cdk.json'), '{"app":"x"}'),
      ],
      [
        'cdk.context.json appeared',
        () => writeFileSync(join(root, 'cdk.context.json'), '{}'),
        () => rmSync(join(root, 'cdk.context.json')),
      ],
      [
        'tsconfig.json changed',
        () => writeFileSync(join(root, 'tsconfig.json'), '{"x":1}'),
        () => writeFileSync(join(root, 'tsconfig.json'), '{}'),
      ],
    ];
    for (const [what, change, undo] of changes) {
      change();
      expect({ what, key: synthesisKey(root, ARGS, {}) }).not.toEqual({ what, key: base });
      undo();
      expect({ what, key: synthesisKey(root, ARGS, {}) }).toEqual({ what, key: base });
    }

    expect(synthesisKey(root, [...ARGS, '-c', 'admissionLimit=4'], {})).not.toBe(base);
    expect(synthesisKey(root, ['-c', 'profile=default'], {})).not.toBe(base);
    expect(synthesisKey(root, ARGS, { CDK_VALIDATION: 'false' })).not.toBe(base);
  });

  it('ignores what the synthesis does not read: tests, docs at the root, unrelated environment', () => {
    const root = fixtureProject();
    const base = synthesisKey(root, ARGS, {});
    writeFileSync(join(root, 'test/unit/a.test.ts'), 'another test');
    writeFileSync(join(root, 'README.md'), 'other readme');
    mkdirSync(join(root, '.local'));
    writeFileSync(join(root, '.local/target.json'), '{}');
    expect(synthesisKey(root, ARGS, { AWS_REGION: 'eu-west-1', HOME: '/elsewhere' })).toBe(base);
  });

  it('covers every project file the app (bin/app.ts) and its bundled handlers import', async () => {
    // esbuild follows the same imports as tsx (the app) and the NodejsFunction bundles (handlers).
    const handlers = readdirSync(join(ROOT, 'lambdas'), { recursive: true, encoding: 'utf8' })
      .filter((file) => /(^|\/)handlers\/[^/]+\.ts$/.test(file))
      .map((file) => join(ROOT, 'lambdas', file));
    expect(handlers.length).toBeGreaterThan(10);
    const result = await build({
      entryPoints: [join(ROOT, 'bin/app.ts'), ...handlers],
      bundle: true,
      write: false,
      metafile: true,
      platform: 'node',
      packages: 'external',
      outdir: join(work, 'out'),
      logLevel: 'silent',
    });
    const inputs = Object.keys(result.metafile.inputs).map((file) => relative(ROOT, resolve(ROOT, file)));
    expect(inputs.length).toBeGreaterThan(100);
    const outside = inputs.filter(
      (file) => !SYNTH_INPUTS.directories.some((dir) => file.startsWith(`${dir}/`)),
    );
    expect(outside).toEqual([]);
  });
});

describe('obtainEntry and copyEntry', () => {
  const key = 'ab'.repeat(16);

  it('produces once, then hits; a caller writing into its copy leaves the entry intact', () => {
    const cache = join(work, 'cache');
    let produced = 0;
    const produce = (dir: string) => {
      produced += 1;
      mkdirSync(join(dir, 'asset.1'), { recursive: true });
      writeFileSync(join(dir, 'asset.1', 'index.js'), 'original');
    };
    const first = obtainEntry(cache, key, produce);
    const second = obtainEntry(cache, key, produce);
    expect({ produced, first: first.hit, second: second.hit }).toEqual({
      produced: 1,
      first: false,
      second: true,
    });
    expect(second.directory).toBe(first.directory);

    const target = join(work, 'cdk.out');
    mkdirSync(target);
    writeFileSync(join(target, 'stale.json'), 'from an older synthesis');
    copyEntry(second.directory, target);
    expect(readdirSync(target)).toEqual(['asset.1']);
    writeFileSync(join(target, 'asset.1', 'index.js'), 'planted bug');
    expect(readFileSync(join(first.directory, 'asset.1', 'index.js'), 'utf8')).toBe('original');
    // No lock, no temporary directory left behind.
    expect(readdirSync(cache)).toEqual([key]);
  });

  it('leaves no entry and no lock when the producer fails, so the next caller produces again', () => {
    const cache = join(work, 'cache');
    expect(() =>
      obtainEntry(cache, key, (dir) => {
        mkdirSync(dir);
        writeFileSync(join(dir, 'half'), 'written');
        throw new Error('synth failed');
      }),
    ).toThrow('synth failed');
    expect(readdirSync(cache)).toEqual([]);
    const again = obtainEntry(cache, key, (dir) => mkdirSync(dir));
    expect(again.hit).toBe(false);
    expect(existsSync(again.directory)).toBe(true);
  });

  it('breaks the lock of a process that is gone (a synthesis killed mid-way)', () => {
    const cache = join(work, 'cache');
    mkdirSync(cache);
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
      encoding: 'utf8',
    });
    writeFileSync(join(cache, `${key}.lock`), gone.stdout);
    const entry = obtainEntry(cache, key, (dir) => mkdirSync(dir));
    expect(entry.hit).toBe(false);
    expect(readdirSync(cache)).toEqual([key]);
  });

  it(`keeps the ${MAX_ENTRIES} most recently used entries and drops older ones`, () => {
    const cache = join(work, 'cache');
    const hourAgo = Date.now() / 1000 - 3600;
    const old = Array.from({ length: MAX_ENTRIES + 2 }, (_, i) => i.toString(16).padStart(32, '0'));
    old.forEach((name, i) => {
      mkdirSync(join(cache, name), { recursive: true });
      // older as i grows
      utimesSync(join(cache, name), hourAgo - i, hourAgo - i);
    });
    obtainEntry(cache, key, (dir) => mkdirSync(dir));
    expect(readdirSync(cache).sort()).toEqual([key, ...old.slice(0, MAX_ENTRIES - 1)].sort());
  });

  it('refuses a key that is not a hash (it names a directory)', () => {
    expect(() => obtainEntry(join(work, 'cache'), '../escape', () => undefined)).toThrow('must be hex');
  });
});
