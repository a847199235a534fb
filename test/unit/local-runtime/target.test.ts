import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DEFAULT_TARGET_FILE,
  defaultTargetFile,
  type LocalTarget,
  outputsOfStack,
  TARGET_FILE_ENV,
} from '../../../lib/local-runtime';
import { readTarget, writeTarget } from '../../../lib/local-runtime/target';

describe("the local runtime's target, one stack at a time", () => {
  const target = {
    kind: 'local',
    outputs: { ApiUrl: 'merged', Shared: 'later' },
    apiKey: 'first',
    stackOutputs: { A: { ApiUrl: 'a' }, B: { ApiUrl: 'b', Shared: 'later' } },
    apis: { A: { url: 'a', apiKeys: ['key-a'] }, B: { url: 'b', apiKeys: ['key-b'] } },
  } as unknown as LocalTarget;

  it("reads the stack's own outputs and its API's key", () => {
    expect(outputsOfStack(target, 'A')).toEqual({ outputs: { ApiUrl: 'a' }, apiKey: 'key-a' });
  });

  it("gives a stack whose API takes no key none, not the base-port API's", () => {
    const keyless = { ...target, apis: { ...target.apis, B: { url: 'b', apiKeys: [] } } } as LocalTarget;
    expect(outputsOfStack(keyless, 'B')).toEqual({ outputs: { ApiUrl: 'b', Shared: 'later' } });
    expect(outputsOfStack(keyless, 'C')).toEqual({ outputs: target.outputs });
  });

  it('falls back to the merged outputs and the base-port key for a target that lists no stacks', () => {
    const { stackOutputs: _outputs, apis: _apis, ...older } = target;
    expect(outputsOfStack(older as LocalTarget, 'A')).toEqual({
      outputs: { ApiUrl: 'merged', Shared: 'later' },
      apiKey: 'first',
    });
  });
});

describe('the target file a local tool uses without --target', () => {
  const paths = { cwd: '/work/here', projectRoot: '/project' };

  it('is .local/target.json under the project root', () => {
    expect(defaultTargetFile({}, paths)).toBe(`/project/${DEFAULT_TARGET_FILE}`);
    expect(defaultTargetFile({ [TARGET_FILE_ENV]: '' }, paths)).toBe(`/project/${DEFAULT_TARGET_FILE}`);
  });

  it('is the file LOCAL_TARGET names, a relative one from the working directory', () => {
    expect(TARGET_FILE_ENV).toBe('LOCAL_TARGET');
    expect(defaultTargetFile({ LOCAL_TARGET: '/tmp/other.json' }, paths)).toBe('/tmp/other.json');
    expect(defaultTargetFile({ LOCAL_TARGET: 'mine.json' }, paths)).toBe('/work/here/mine.json');
  });
});

describe('the target file', () => {
  it('is readable by the developer only (it holds API keys and secrets), even one an older start left open', () => {
    const dir = mkdtempSync(join(tmpdir(), 'target-'));
    try {
      const file = join(dir, 'nested', 'target.json');
      const target = {
        kind: 'local',
        endpoints: { dynamodb: 'http://127.0.0.1:1' },
        outputs: {},
        apiKey: 'k',
      } as unknown as LocalTarget;
      writeTarget(file, target);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(readTarget(file)).toMatchObject({ apiKey: 'k' });
      const older = join(dir, 'older.json');
      writeFileSync(older, '{}', { mode: 0o644 });
      writeTarget(older, target);
      expect(statSync(older).mode & 0o777).toBe(0o600);
      // The runtime's own folder (.local) is narrowed to 0700, created or found wider; a folder the
      // developer named is made 0700 when created, and left as it was when it existed.
      const local = join(dir, '.local');
      mkdirSync(local, { mode: 0o755 });
      chmodSync(local, 0o755);
      writeTarget(join(local, 'target.json'), target);
      expect(statSync(local).mode & 0o777).toBe(0o700);
      writeTarget(join(dir, 'new', 'nested', 'target.json'), target);
      expect(statSync(join(dir, 'new', 'nested')).mode & 0o777).toBe(0o700);
      chmodSync(dir, 0o755);
      writeTarget(join(dir, 'mine.json'), target);
      expect(statSync(dir).mode & 0o777).toBe(0o755);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
