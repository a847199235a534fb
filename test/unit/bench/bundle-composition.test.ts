import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSync } from 'esbuild';
import {
  bundleComposition,
  charactersBySource,
  decodeSegment,
  packageOf,
  type SourceMap,
  UNMAPPED,
} from '../../../lib/bench/core/bundle-composition';

describe('decodeSegment (Base64 VLQ)', () => {
  it('reads small, negative and multi-digit numbers', () => {
    expect(decodeSegment('AAAA')).toEqual([0, 0, 0, 0]);
    expect(decodeSegment('C')).toEqual([1]);
    expect(decodeSegment('D')).toEqual([-1]);
    expect(decodeSegment('gB')).toEqual([16]);
    expect(decodeSegment('2HwBmB')).toEqual([123, 24, 19]);
  });

  it('refuses what is not VLQ', () => {
    expect(() => decodeSegment('A*')).toThrow("'*' is not a Base64 VLQ digit");
    expect(() => decodeSegment('g')).toThrow('ends inside a number');
  });
});

describe('packageOf', () => {
  it('names packages, scoped ones and those nested in another package as that package', () => {
    expect(packageOf('../../node_modules/zod/v4/core/schemas.js')).toBe('zod');
    expect(packageOf('../../node_modules/@aws-lambda-powertools/logger/lib/esm/Logger.js')).toBe(
      '@aws-lambda-powertools/logger',
    );
    expect(packageOf('../node_modules/aws-xray-sdk-core/node_modules/semver/index.js')).toBe(
      'aws-xray-sdk-core',
    );
  });

  it('names project code by its first two folders', () => {
    expect(packageOf('../../../../lambdas/shared/parse.ts')).toBe('lambdas/shared');
    expect(packageOf('lambdas/scheduler-agent-supervisor/handlers/agent.ts')).toBe(
      'lambdas/scheduler-agent-supervisor',
    );
    expect(packageOf('entry.ts')).toBe('entry.ts');
  });
});

describe('charactersBySource', () => {
  it('gives each mapped stretch of a line to its source, up to the next segment or the line end', () => {
    // Line 1: columns 0-2 from a.ts, 3-5 from b.ts. Line 2: one unmapped column, then a.ts again.
    const map: SourceMap = { sources: ['a.ts', 'b.ts'], mappings: 'AAAA,GCAA;A,CDAA' };
    const counts = charactersBySource('abcdef\nxyz', map);
    expect(Object.fromEntries(counts)).toEqual({ 'a.ts': 5, 'b.ts': 3, [UNMAPPED]: 2 });
  });
});

describe('bundleComposition of a real esbuild bundle', () => {
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'bench-composition-'));
    const lib = join(root, 'node_modules', 'big-lib');
    mkdirSync(lib, { recursive: true });
    writeFileSync(join(lib, 'package.json'), JSON.stringify({ name: 'big-lib', main: 'index.js' }));
    const body = Array.from({ length: 200 }, (_, index) => `exports.f${index} = (x) => x * ${index} + 1;`);
    writeFileSync(join(lib, 'index.js'), body.join('\n'));
    mkdirSync(join(root, 'src'));
    writeFileSync(
      join(root, 'src', 'entry.ts'),
      "import * as big from 'big-lib';\nexport const handler = (n: number) => big.f7(n) + big.f199(n);\n",
    );
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('accounts for every character and agrees with the metafile on who takes what', () => {
    const result = buildSync({
      entryPoints: [join(root, 'src', 'entry.ts')],
      outfile: join(root, 'out', 'index.js'),
      bundle: true,
      platform: 'node',
      minify: true,
      sourcemap: true,
      metafile: true,
      write: false,
      absWorkingDir: root,
    });
    const code = result.outputFiles.find((file) => file.path.endsWith('.js'))?.text ?? '';
    const map = JSON.parse(result.outputFiles.find((file) => file.path.endsWith('.map'))?.text ?? '{}');
    const composition = bundleComposition(code, map);

    expect(composition.reduce((sum, part) => sum + part.characters, 0)).toBe(code.length);
    const output = Object.values(result.metafile.outputs).find((candidate) => candidate.entryPoint);
    const metafileBytes = (input: string) => output?.inputs[input]?.bytesInOutput ?? 0;
    const ours = (name: string) => composition.find((part) => part.name === name)?.characters ?? 0;
    expect(composition[0]?.name).toBe('big-lib');
    expect(ours('big-lib')).toBeGreaterThan(metafileBytes('node_modules/big-lib/index.js') * 0.95);
    expect(ours('big-lib')).toBeLessThan(metafileBytes('node_modules/big-lib/index.js') * 1.05);
  });
});
