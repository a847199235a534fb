/** npm start's command line: --port or PORT (the flag wins), paths, and clear errors. */
import { DEFAULT_PORT, parseStartArguments } from '../../../bin/start-arguments';

const paths = { cwd: '/work/here', projectRoot: '/project' };
const parse = (argv: string[], environment: Record<string, string | undefined> = {}) =>
  parseStartArguments(argv, environment, paths);

describe('npm start arguments', () => {
  it('defaults to port 3000 and the project target file', () => {
    expect(parse([])).toEqual({
      port: DEFAULT_PORT,
      targetFile: '/project/.local/target.json',
      iam: 'enforce',
      clock: 'wall',
      context: {},
    });
    expect(DEFAULT_PORT).toBe(3000);
  });

  it('takes the port from PORT like from --port, and the flag wins when both are given', () => {
    expect(parse([], { PORT: '4100' }).port).toBe(4100);
    expect(parse(['--port', '4200']).port).toBe(4200);
    expect(parse(['--port', '4200'], { PORT: '4100' }).port).toBe(4200);
    expect(parse(['--port', '0'], { PORT: '4100' }).port).toBe(0);
    expect(parse([], { PORT: '' }).port).toBe(DEFAULT_PORT);
  });

  it('refuses a bad port with an error naming where it came from', () => {
    expect(() => parse([], { PORT: 'abc' })).toThrow("PORT must be a port number (0-65535), got 'abc'");
    expect(() => parse([], { PORT: '70000' })).toThrow("PORT must be a port number (0-65535), got '70000'");
    expect(() => parse([], { PORT: '3000.5' })).toThrow('PORT must be a port number');
    expect(() => parse(['--port', '-1'])).toThrow("--port must be a port number (0-65535), got '-1'");
    expect(() => parse(['--port', '--data'])).toThrow('--port needs a value');
    expect(() => parse(['--port', 'x'], { PORT: '4100' })).toThrow(
      "--port must be a port number (0-65535), got 'x'",
    );
    // The flag wins even over a bad PORT, which is then never read.
    expect(parse(['--port', '4200'], { PORT: 'abc' }).port).toBe(4200);
  });

  it('resolves paths from the working directory and refuses unknown arguments', () => {
    expect(parse(['--data', 'd', '--assembly', '/a', '--target', 't.json'])).toEqual({
      port: DEFAULT_PORT,
      dataDir: '/work/here/d',
      assemblyDir: '/a',
      targetFile: '/work/here/t.json',
      iam: 'enforce',
      clock: 'wall',
      context: {},
    });
    expect(() => parse(['--verbose'])).toThrow("Unknown argument '--verbose'. Usage: npm start --");
    expect(() => parse(['--data'])).toThrow('--data needs a value');
  });

  it('takes --iam enforce or report, and names what it takes when given something else', () => {
    expect(parse(['--iam', 'report']).iam).toBe('report');
    expect(parse(['--iam', 'enforce']).iam).toBe('enforce');
    expect(() => parse(['--iam', 'off'])).toThrow("--iam must be enforce or report, got 'off'");
  });

  it('takes --clock wall or virtual (else LOCAL_CLOCK; the flag wins), and names what it takes otherwise', () => {
    expect(parse(['--clock', 'virtual']).clock).toBe('virtual');
    expect(parse([], { LOCAL_CLOCK: 'virtual' }).clock).toBe('virtual');
    expect(parse(['--clock', 'wall'], { LOCAL_CLOCK: 'virtual' }).clock).toBe('wall');
    expect(parse([], { LOCAL_CLOCK: '' }).clock).toBe('wall');
    expect(() => parse(['--clock', 'fast'])).toThrow("--clock must be wall or virtual, got 'fast'");
    expect(() => parse([], { LOCAL_CLOCK: 'slow' })).toThrow(
      "LOCAL_CLOCK must be wall or virtual, got 'slow'",
    );
  });

  it('writes the target LOCAL_TARGET names (from the working directory), and --target wins', () => {
    expect(parse([], { LOCAL_TARGET: 'side.json' }).targetFile).toBe('/work/here/side.json');
    expect(parse([], { LOCAL_TARGET: '/tmp/side.json' }).targetFile).toBe('/tmp/side.json');
    expect(parse(['--target', 't.json'], { LOCAL_TARGET: '/tmp/side.json' }).targetFile).toBe(
      '/work/here/t.json',
    );
  });

  it('collects --context key=value for the synthesis (repeatable, the last value of a key wins)', () => {
    expect(
      parse([
        '--context',
        'workflowVersion=2',
        '--context',
        'admissionLimit=4',
        '--context',
        'workflowVersion=1',
      ]).context,
    ).toEqual({ workflowVersion: '1', admissionLimit: '4' });
    expect(() => parse(['--context', 'workflowVersion'])).toThrow(
      "--context takes key=value, got 'workflowVersion'",
    );
  });
});
