/**
 * Runs Lambda functions from their bundled assets, each invocation in a worker thread that plays
 * one execution environment: its own environment variables and module state, one invocation at a
 * time, reused while warm, killed when the function timeout passes (as Lambda kills the sandbox).
 * Concurrency per function is capped at its reserved concurrency, else at a small pool.
 */
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import {
  ACTIVITY_HEADER,
  admitted,
  CALL_HEADER,
  type ClockActivity,
  type ClockTimer,
  hashString,
  type RuntimeClock,
  WallClock,
} from '../clock';
import { mintUuid } from '../minted-ids';
import { RequestTooLargeError } from './errors';
import { MAX_ASYNC_REQUEST_BYTES, MAX_SYNC_REQUEST_BYTES, MAX_SYNC_RESPONSE_BYTES } from './limits';
import { LineSplitter } from './line-splitter';

export interface LambdaFunctionSpec {
  readonly logicalId: string;
  readonly functionName: string;
  readonly functionArn: string;
  /**
   * The execution role: its session's credentials are in `environment`, and it is who the function
   * is to IAM. @default - none (a host run outside a runtime's account, as in its own tests)
   */
  readonly roleArn?: string;
  /** Directory holding the bundled code (cdk.out/asset.<hash>). */
  readonly codeDirectory: string;
  /** `<file>.<export>`, as in the template. */
  readonly handler: string;
  /** Complete process environment of the sandbox (the host's own env is NOT inherited). */
  readonly environment: Readonly<Record<string, string>>;
  readonly timeoutSeconds: number;
  readonly memorySizeMb: number;
  /** Concurrent executions allowed (reserved concurrency, or the local default pool size). */
  readonly maxConcurrency: number;
  /** Retries of a failed asynchronous invocation (EventInvokeConfig; Lambda's default is 2). */
  readonly asyncRetryAttempts: number;
  /** Fault hook: milliseconds added to Date inside the sandbox. @default 0 */
  readonly clockOffsetMillis?: number;
  /** Fault hook: logical id of the function this one is an extra copy of. @default - not a copy */
  readonly replicaOf?: string;
  /** Its log group (LoggingConfig.LogGroup). @default - `/aws/lambda/<function name>`, as Lambda's */
  readonly logGroupName?: string;
}

export interface LambdaError {
  readonly errorType: string;
  readonly errorMessage: string;
  readonly trace?: readonly string[];
}

export type InvocationResult =
  | { readonly ok: true; readonly payload: unknown; readonly requestId: string }
  | { readonly ok: false; readonly error: LambdaError; readonly requestId: string };

/** One invocation starting in a sandbox (what the fault hook onInvocation sees). */
export interface InvocationStart {
  readonly spec: LambdaFunctionSpec;
  readonly requestId: string;
  readonly event: unknown;
  /** Kills the sandbox now, as a crash would: the invocation fails with Runtime.ExitError. */
  terminate(): Promise<void>;
}

/** Sees each invocation start; a returned function is called with the result when it ends. */
export type InvocationObserver = (
  invocation: InvocationStart,
) => ((result: InvocationResult) => void) | undefined;

export interface LambdaHostOptions {
  /** Receives everything a function writes to stdout/stderr. */
  readonly onOutput?: (spec: LambdaFunctionSpec, text: string) => void;
  /**
   * Receives the same output line by line, each line whole (split per sandbox and stream, so the
   * lines of concurrent sandboxes never mix).
   */
  readonly onOutputLine?: (spec: LambdaFunctionSpec, line: string) => void;
  /** Receives failed invocations (after which the caller decides what to do). */
  readonly onError?: (spec: LambdaFunctionSpec, error: LambdaError, requestId: string) => void;
  /** Delay before each retry of a failed asynchronous invocation (Lambda: 1 min, then 2 min). */
  readonly asyncRetryDelaysMillis?: readonly number[];
  /** Fault hook (see fault-hooks.ts): sees each invocation start, may kill its sandbox. */
  readonly onInvocation?: InvocationObserver;
  /**
   * Timeouts, retry delays and the sandboxes' Date run on it; an invocation holds it while it
   * runs. @default - the wall clock
   */
  readonly clock?: RuntimeClock;
}

const WORKER_SCRIPT = join(__dirname, 'worker.js');

/** A sandbox's timer on the runtime's virtual clock (worker.js virtualTimers). */
type WorkerTimerMessage =
  | { readonly kind: 'timer'; readonly timerId: number; readonly delayMillis: number }
  | { readonly kind: 'cancel'; readonly timerId: number }
  | { readonly kind: 'waiting'; readonly waiting: boolean };

interface WorkerReply {
  readonly kind?: undefined;
  readonly id: string;
  readonly ok: boolean;
  readonly payloadJson?: string;
  readonly error?: LambdaError;
}

/** One execution environment: a worker thread serving one invocation at a time. */
class Sandbox {
  private readonly worker: Worker;
  private pending: { id: string; settle: (reply: WorkerReply) => void } | undefined;
  private alive = true;
  private readonly clock: RuntimeClock;
  private readonly functionName: string;
  /** The running invocation's hold on the clock, which the sandbox's timers park. */
  private activity: ClockActivity | undefined;
  private readonly timers = new Map<number, ClockTimer>();
  /** Set while the sandbox waits only on its timers: the invocation's hold parked. */
  private waiting: { resume(): void } | undefined;
  /**
   * Requests the sandbox has sent to the runtime in its life, answers it has handled, messages
   * about its timers it has posted, and requests it has run on from (worker.js counts them).
   */
  private readonly calls = new Int32Array(new SharedArrayBuffer(16));
  /** The sandbox's messages about its timers handled here (onTimer). */
  private timerMessagesHandled = 0;

  /** `ordinal`: the how-manyth sandbox of its function (a seeded clock seeds its randomness by it). */
  constructor(spec: LambdaFunctionSpec, options: LambdaHostOptions, ordinal: number) {
    const seed = options.clock?.seed;
    this.functionName = spec.functionName;
    this.worker = new Worker(WORKER_SCRIPT, {
      env: { ...spec.environment },
      stdout: true,
      stderr: true,
      workerData: {
        codeDirectory: spec.codeDirectory,
        handler: spec.handler,
        functionName: spec.functionName,
        functionArn: spec.functionArn,
        memorySizeMb: spec.memorySizeMb,
        logGroupName: spec.logGroupName ?? `/aws/lambda/${spec.functionName}`,
        workerId: mintUuid().replaceAll('-', ''),
        ...(seed !== undefined && { randomSeed: hashString(`${seed}|${spec.functionName}|${ordinal}`) }),
        clockOffsetMillis: spec.clockOffsetMillis ?? 0,
        ...(options.clock?.sharedTime && {
          sharedTime: options.clock.sharedTime,
          activityHeader: ACTIVITY_HEADER,
          callHeader: CALL_HEADER,
          calls: this.calls.buffer,
        }),
      },
      resourceLimits: { maxOldGenerationSizeMb: Math.max(64, spec.memorySizeMb) },
      // Lambda's Node.js runtime is plain node. A worker inherits the host's flags by default, so
      // a host run by tsx (npm start, the bench) gave every sandbox tsx's loader hooks and source
      // maps: 6x the CPU per cold start (12 sandboxes: 3.0 CPU-s, 0.52 without) and ~0.07 CPU-s
      // more per order in the threads. The bundled assets need none of it.
      execArgv: [],
    });
    const { onOutput, onOutputLine } = options;
    for (const stream of [this.worker.stdout, this.worker.stderr]) {
      const lines = onOutputLine ? new LineSplitter((line) => onOutputLine(spec, line)) : undefined;
      stream.on('data', (chunk: Buffer) => {
        const text = chunk.toString('utf8');
        onOutput?.(spec, text);
        lines?.write(text);
      });
    }
    this.clock = options.clock ?? new WallClock();
    this.worker.on('message', (reply: WorkerReply | WorkerTimerMessage) => {
      if (reply.kind !== undefined) {
        this.onTimer(reply);
        return;
      }
      if (this.pending?.id === reply.id) {
        const { settle } = this.pending;
        this.pending = undefined;
        settle(reply);
      }
    });
    // An uncaught exception or unhandled rejection ends the environment, as in Lambda.
    this.worker.on('error', (error: Error) => this.die('Runtime.UnhandledError', error.message));
    this.worker.on('exit', (code) => this.die('Runtime.ExitError', `Runtime exited with code ${code}`));
  }

  get isAlive(): boolean {
    return this.alive;
  }

  invoke(
    invocation: {
      id: string;
      requestId: string;
      eventJson: string;
      deadline: number;
    },
    activity: ClockActivity,
  ): Promise<WorkerReply> {
    this.activity = activity;
    // A request on its way to the runtime's server is part of the invocation until it arrives, and
    // an answer until the sandbox has handled it (a seeded clock waits for both: expectCalls).
    const since = (index: number) => {
      const before = Atomics.load(this.calls, index);
      return () => Atomics.load(this.calls, index) - before;
    };
    this.clock.expectCalls(activity, {
      sent: since(0),
      handled: since(1),
      goneOn: since(3),
      timerMessagesUnhandled: () => Atomics.load(this.calls, 2) - this.timerMessagesHandled,
    });
    return new Promise<WorkerReply>((settle) => {
      this.pending = { id: invocation.id, settle };
      this.worker.postMessage({ ...invocation, ...(activity.id && { activityId: activity.id }) });
    }).finally(() => {
      this.stopWaiting();
      this.activity = undefined;
      if (this.clock.seed !== undefined) this.dropTimers();
    });
  }

  /**
   * On a seeded clock a sandbox's timers still pending when its invocation answers never fire (its
   * worker drops them too, before it answers): as a frozen Lambda sandbox's, they do not run between
   * invocations, and a cancel the SDK sends after its last response cannot race the clock.
   */
  private dropTimers(): void {
    for (const timer of this.timers.values()) timer.cancel();
    this.timers.clear();
  }

  private stopWaiting(): void {
    this.waiting?.resume();
    this.waiting = undefined;
  }

  /**
   * A timer the sandbox set while invoked, armed on the clock; and whether the sandbox waits only
   * on its timers (worker.js reportWaiting), the invocation's hold parked meanwhile. A timer that
   * fires resumes the hold before the sandbox runs its callback; the sandbox then tells again
   * whether it waits (it may still wait on others).
   */
  private onTimer(message: WorkerTimerMessage): void {
    this.applyTimerMessage(message);
    // Counted once applied: until then a seeded clock does not pick (worker.js postTimerMessage).
    this.timerMessagesHandled += 1;
  }

  private applyTimerMessage(message: WorkerTimerMessage): void {
    if (message.kind === 'waiting') {
      this.stopWaiting();
      if (message.waiting && this.activity) this.waiting = this.clock.park(this.activity);
      return;
    }
    const { timerId } = message;
    if (message.kind === 'cancel') {
      this.timers.get(timerId)?.cancel();
      this.timers.delete(timerId);
      return;
    }
    const timer = this.clock.setTimer(
      () => {
        this.timers.delete(timerId);
        this.stopWaiting();
        if (!this.alive) return;
        // Counted as an answer the sandbox handles (worker.js firingHandled): the invocation's hold
        // may be parked on a request of its own, and the callback may send another.
        if (this.activity) this.clock.answered(this.activity);
        this.worker.postMessage({ kind: 'fire', timerId });
      },
      message.delayMillis,
      `timer ${this.functionName} ${message.delayMillis} ms`,
    );
    this.timers.set(timerId, timer);
  }

  private die(errorType: string, errorMessage: string): void {
    this.alive = false;
    if (this.pending) {
      const { id, settle } = this.pending;
      this.pending = undefined;
      settle({ id, ok: false, error: { errorType, errorMessage } });
    }
  }

  async terminate(): Promise<void> {
    this.alive = false;
    await this.worker.terminate();
  }
}

/** The execution environments of one function. */
class FunctionPool {
  private readonly idle: Sandbox[] = [];
  private readonly all = new Set<Sandbox>();
  private created = 0;
  private readonly waiting: Array<() => void> = [];
  private stopped = false;

  constructor(
    readonly spec: LambdaFunctionSpec,
    private readonly options: LambdaHostOptions,
  ) {}

  async acquire(): Promise<Sandbox> {
    for (;;) {
      if (this.stopped) throw new Error(`Function ${this.spec.logicalId} is stopped`);
      const warm = this.idle.pop();
      if (warm?.isAlive) return warm;
      if (warm) {
        this.all.delete(warm);
        continue;
      }
      if (this.all.size < this.spec.maxConcurrency) {
        const sandbox = new Sandbox(this.spec, this.options, this.created++);
        this.all.add(sandbox);
        return sandbox;
      }
      await new Promise<void>((wake) => this.waiting.push(wake));
    }
  }

  release(sandbox: Sandbox, reusable: boolean): void {
    if (reusable && sandbox.isAlive) {
      this.idle.push(sandbox);
    } else {
      this.all.delete(sandbox);
      void sandbox.terminate();
    }
    this.waiting.shift()?.();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    // Waiting invocations wake up and fail rather than hang.
    for (const wake of this.waiting.splice(0)) wake();
    const sandboxes = [...this.all];
    this.all.clear();
    this.idle.length = 0;
    await Promise.all(sandboxes.map((sandbox) => sandbox.terminate()));
  }
}

export class LambdaHost {
  private readonly pools = new Map<string, FunctionPool>();
  private readonly retryTimers = new Set<ClockTimer>();
  private stopped = false;
  private readonly clock: RuntimeClock;

  constructor(private readonly options: LambdaHostOptions = {}) {
    this.clock = options.clock ?? new WallClock();
  }

  register(spec: LambdaFunctionSpec): void {
    if (spec.maxConcurrency < 1) {
      throw new Error(
        `Function ${spec.logicalId}: concurrency must be at least 1, got ${spec.maxConcurrency}`,
      );
    }
    const pool = new FunctionPool(spec, this.options);
    for (const key of [spec.logicalId, spec.functionName, spec.functionArn]) {
      this.pools.set(key, pool);
    }
  }

  /** The function behind a logical id, name or ARN (ARN qualifiers are ignored: only $LATEST runs). */
  find(reference: string): LambdaFunctionSpec | undefined {
    return this.poolOf(reference)?.spec;
  }

  private poolOf(reference: string): FunctionPool | undefined {
    const unqualified = reference.replace(/^(arn:[^:]+:lambda:[^:]+:[^:]+:function:[^:]+):.*$/, '$1');
    return this.pools.get(unqualified);
  }

  /**
   * Synchronous invocation (RequestResponse): resolves with the result or the function error. An
   * event over Lambda's synchronous payload quota is refused (RequestTooLargeException), and a
   * response over it fails the invocation (Function.ResponseSizeTooLarge), as Lambda does
   * (limits.ts).
   */
  async invoke(reference: string, event: unknown): Promise<InvocationResult> {
    const eventJson = JSON.stringify(event ?? null);
    if (Buffer.byteLength(eventJson, 'utf8') > MAX_SYNC_REQUEST_BYTES) {
      throw new RequestTooLargeError(MAX_SYNC_REQUEST_BYTES);
    }
    return this.run(reference, event, eventJson, 'RequestResponse');
  }

  private async run(
    reference: string,
    event: unknown,
    eventJson: string,
    invocationType: 'RequestResponse' | 'Event',
  ): Promise<InvocationResult> {
    const pool = this.poolOf(reference);
    if (!pool) {
      throw new Error(
        `No local function ${reference} (known: ${[...new Set(this.pools.values())].map((p) => p.spec.functionName).join(', ')})`,
      );
    }
    if (this.stopped) throw new Error('The local runtime is stopped');
    const spec = pool.spec;
    // Time stands still on a virtual clock while a function runs; its caller (a request, another
    // invocation) waits for it meanwhile, parked: from before it waits for a free sandbox, which
    // may be held by invocations that themselves wait on the clock (a sleep, a stalled call).
    const caller = this.clock.park();
    // Admitted before it takes a sandbox (on a seeded clock, the order of admissions decides which
    // invocation gets a warm sandbox); parked while it waits for one.
    const running = await admitted(this.clock, `invoke ${spec.functionName}`);
    // Minted once admitted: in the seeded order, not in the order invocations arrived in.
    const requestId = mintUuid();
    const acquiring = this.clock.park(running);
    let sandbox: Sandbox;
    try {
      sandbox = await pool.acquire();
    } catch (error) {
      acquiring.resume();
      running.release();
      caller.resume();
      throw error;
    }
    acquiring.resume();
    this.clock.elapse(1);
    try {
      return await this.runIn(sandbox, pool, { requestId, event, eventJson, invocationType, running });
    } finally {
      caller.resume();
      running.release();
    }
  }

  private async runIn(
    sandbox: Sandbox,
    pool: FunctionPool,
    call: {
      readonly requestId: string;
      readonly event: unknown;
      readonly eventJson: string;
      readonly invocationType: 'RequestResponse' | 'Event';
      readonly running: ClockActivity;
    },
  ): Promise<InvocationResult> {
    const { requestId, event, eventJson, invocationType, running } = call;
    const spec = pool.spec;
    const finished = this.options.onInvocation?.({
      spec,
      requestId,
      event,
      terminate: () => sandbox.terminate(),
    });
    // The deadline the sandbox reads (getRemainingTimeInMillis) is on the runtime's clock; the
    // timeout itself on the wall clock: a virtual clock stands still while the function runs, so
    // the time a function takes is the machine's (wall clock: a function hung on a fault times out).
    const deadline = this.clock.now() + spec.timeoutSeconds * 1000;
    let timer: NodeJS.Timeout | undefined;
    const timeout: WorkerReply = {
      id: requestId,
      ok: false,
      error: {
        errorType: 'Sandbox.Timedout',
        errorMessage: `Task timed out after ${spec.timeoutSeconds.toFixed(2)} seconds`,
      },
    };
    let virtualTimer: ClockTimer | undefined;
    const timedOut = new Promise<WorkerReply>((settle) => {
      // Not on a seeded clock: the machine would decide which run times out (a busy machine runs
      // the same clock time slower); there a function that holds the clock for ever is what the
      // caller's own cap on the wall clock ends.
      if (this.clock.seed === undefined) {
        // wall clock: a function's own running time
        timer = setTimeout(() => settle(timeout), spec.timeoutSeconds * 1000);
      }
      // On a virtual clock also its deadline there: reached while the function waits on a timer.
      if (this.clock.mode === 'virtual') {
        virtualTimer = this.clock.setTimer(() => settle(timeout), spec.timeoutSeconds * 1000);
      }
    });
    const answer = await Promise.race([
      sandbox.invoke({ id: requestId, requestId, eventJson, deadline }, running),
      timedOut,
    ]);
    clearTimeout(timer);
    virtualTimer?.cancel();
    const reply = invocationType === 'RequestResponse' ? withinResponseQuota(answer) : answer;
    // A timeout or a runtime crash leaves the environment in an unknown state: replace it.
    const reusable =
      reply.ok ||
      (!reply.error?.errorType.startsWith('Runtime.') && reply.error?.errorType !== 'Sandbox.Timedout');
    pool.release(sandbox, reusable);
    if (reply.ok) {
      const succeeded: InvocationResult = {
        ok: true,
        payload: JSON.parse(reply.payloadJson ?? 'null') as unknown,
        requestId,
      };
      finished?.(succeeded);
      return succeeded;
    }
    const error = reply.error ?? { errorType: 'Runtime.Unknown', errorMessage: 'no result' };
    // Sandboxes killed by stop() are not failures worth reporting.
    if (!this.stopped) this.options.onError?.(spec, error, requestId);
    const failed: InvocationResult = { ok: false, error, requestId };
    finished?.(failed);
    return failed;
  }

  /**
   * Asynchronous invocation (Event), as used by EventBridge and SNS: returns at once; a failed
   * invocation is retried the function's asyncRetryAttempts times, then dropped (and reported). An
   * event over Lambda's asynchronous payload quota is refused at once (RequestTooLargeException).
   */
  invokeAsync(reference: string, event: unknown): void {
    const spec = this.find(reference);
    if (!spec) throw new Error(`No local function ${reference}`);
    const eventJson = JSON.stringify(event ?? null);
    if (Buffer.byteLength(eventJson, 'utf8') > MAX_ASYNC_REQUEST_BYTES) {
      throw new RequestTooLargeError(MAX_ASYNC_REQUEST_BYTES);
    }
    const delays = this.options.asyncRetryDelaysMillis ?? [60_000, 120_000];
    const attempt = (retry: number) => {
      if (this.stopped) return;
      void this.run(reference, event, eventJson, 'Event').then((result) => {
        if (result.ok || retry >= spec.asyncRetryAttempts || this.stopped) return;
        const timer = this.clock.setTimer(
          () => {
            this.retryTimers.delete(timer);
            attempt(retry + 1);
          },
          delays[Math.min(retry, delays.length - 1)] ?? 60_000,
        );
        this.retryTimers.add(timer);
      });
    };
    attempt(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.retryTimers) timer.cancel();
    this.retryTimers.clear();
    await Promise.all([...new Set(this.pools.values())].map((pool) => pool.stop()));
  }
}

/**
 * A synchronous invocation's reply, failed with Function.ResponseSizeTooLarge when its response is
 * over Lambda's quota (limits.ts). The sandbox served it whole, so it stays reusable.
 */
function withinResponseQuota(reply: WorkerReply): WorkerReply {
  if (!reply.ok || Buffer.byteLength(reply.payloadJson ?? 'null', 'utf8') <= MAX_SYNC_RESPONSE_BYTES) {
    return reply;
  }
  return {
    id: reply.id,
    ok: false,
    error: {
      errorType: 'Function.ResponseSizeTooLarge',
      errorMessage: `Response payload size exceeded maximum allowed payload size (${MAX_SYNC_RESPONSE_BYTES} bytes).`,
    },
  };
}
