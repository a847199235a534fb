import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { buildSync } from 'esbuild';
import { HandlerBundles } from '../../../lib/platform/handler-bundles';
import { HANDLER_BUNDLING } from '../../../lib/platform/handler-bundling';

/** A project of its own: two handlers sharing a module, and an entry outside `handlers/`. */
const SOURCES: Readonly<Record<string, string>> = {
  'lambdas/a/shared/greet.ts': "export const greet = (name: string): string => 'hello ' + name;\n",
  'lambdas/a/handlers/one.ts':
    "import { greet } from '../shared/greet';\nexport const handler = async () => greet('one');\n",
  'lambdas/a/handlers/two.ts':
    "import { greet } from '../shared/greet';\nexport const handler = async () => greet('two');\n",
  'lambdas/b/other.ts': 'export const handler = async () => 42;\n',
};

let root: string;
let scratch: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'handler-bundles-project-'));
  scratch = mkdtempSync(join(tmpdir(), 'handler-bundles-out-'));
  for (const [file, text] of Object.entries(SOURCES)) {
    mkdirSync(dirname(join(root, file)), { recursive: true });
    writeFileSync(join(root, file), text);
  }
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(scratch, { recursive: true, force: true });
});

const read = (directory: string, file: string) => readFileSync(join(directory, file), 'utf8');

describe('HandlerBundles', () => {
  it('builds every handler once and serves each from that build', () => {
    const bundles = HandlerBundles.of(root);
    bundles.copyInto('a/handlers/one', join(scratch, 'one'));
    // An edit after the build does not reach the second handler: it was built with the first.
    writeFileSync(join(root, 'lambdas/a/handlers/two.ts'), 'export const handler = async () => 0;\n');
    bundles.copyInto('a/handlers/two', join(scratch, 'two'));

    expect(bundles.builds).toBe(1);
    expect(read(join(scratch, 'two'), 'index.js')).toContain('hello ');
    expect(HandlerBundles.of(root)).toBe(bundles);
  });

  it('gives the code a build of the entry alone gives, runnable as index.handler', async () => {
    HandlerBundles.of(root).copyInto('a/handlers/one', join(scratch, 'one'));
    buildSync({
      ...HANDLER_BUNDLING,
      absWorkingDir: root,
      entryPoints: [join(root, 'lambdas/a/handlers/one.ts')],
      outfile: join(scratch, 'alone', 'index.js'),
      logLevel: 'silent',
    });

    expect(read(join(scratch, 'one'), 'index.js')).toBe(read(join(scratch, 'alone'), 'index.js'));
    const loaded = require(join(scratch, 'one', 'index.js')) as { handler: () => Promise<string> };
    await expect(loaded.handler()).resolves.toBe('hello one');
  });

  it('names the sources in its maps from the project root, wherever it is built', () => {
    HandlerBundles.of(root).copyInto('a/handlers/two', join(scratch, 'two'));

    const map = JSON.parse(read(join(scratch, 'two'), 'index.js.map')) as { sources: string[] };
    expect([...map.sources].sort()).toEqual(['lambdas/a/handlers/two.ts', 'lambdas/a/shared/greet.ts']);
  });

  it('builds again, with it added, for an entry outside handlers/', () => {
    const bundles = HandlerBundles.of(root);
    bundles.copyInto('a/handlers/one', join(scratch, 'one'));
    bundles.copyInto('b/other', join(scratch, 'other'));
    bundles.copyInto('a/handlers/two', join(scratch, 'two'));

    expect(bundles.builds).toBe(2);
    expect(read(join(scratch, 'other'), 'index.js')).toContain('42');
  });

  it('fails naming the file and line esbuild could not bundle', () => {
    writeFileSync(
      join(root, 'lambdas/a/handlers/two.ts'),
      "import { nothing } from './absent';\nexport const handler = nothing;\n",
    );

    expect(() => HandlerBundles.of(root).copyInto('a/handlers/one', join(scratch, 'one'))).toThrow(
      /Bundling the handlers under .*lambdas failed: .*lambdas\/a\/handlers\/two\.ts:1:.*Could not resolve "\.\/absent"/s,
    );
  });
});
