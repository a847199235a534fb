/**
 * One Lambda execution environment: runs inside a worker_threads Worker whose env is the function's
 * resolved environment. Loads the bundled handler once (cold start) and serves one invocation at a
 * time, reporting `{ ok, payload }` or `{ ok: false, error: { errorType, errorMessage, trace } }`.
 * Plain CommonJS so it runs as-is under node, tsx and jest alike (it executes bundled assets, not
 * project sources).
 */
const { existsSync } = require('node:fs');
const { join } = require('node:path');
const { pathToFileURL } = require('node:url');
const { parentPort, workerData } = require('node:worker_threads');

let handlerPromise;

/**
 * The sandbox's clock. On the runtime's virtual clock (../clock/virtual-clock.ts) Date reads the
 * runtime's time from shared memory (`sharedTime`: Float64 epoch millis), so a function signs
 * requests, computes expiries and reads its deadline on the runtime's time (its timers: see
 * virtualTimers). Fault hook
 * (fault-hooks.ts clockOffsetMillis): this sandbox's clock runs offset from the host's, as a
 * machine with a skewed clock would. Date.now() and `new Date()` shift; timers do not.
 */
function sandboxClock(offsetMillis, sharedTime) {
  const HostDate = Date;
  const shared = sharedTime ? new Float64Array(sharedTime) : undefined;
  const base = shared ? () => shared[0] : () => HostDate.now();
  class SandboxDate extends HostDate {
    constructor(...args) {
      if (args.length === 0) super(base() + offsetMillis);
      else super(...args);
    }
    static now() {
      return base() + offsetMillis;
    }
  }
  globalThis.Date = SandboxDate;
}
if (workerData.clockOffsetMillis || workerData.sharedTime) {
  sandboxClock(workerData.clockOffsetMillis ?? 0, workerData.sharedTime);
}

/**
 * On a seeded clock the sandbox's randomness is the seed's (`randomSeed`: the run's seed, the
 * function and the sandbox's ordinal): Math.random, and node:crypto's and Web Crypto's random
 * bytes and UUIDs, so that what a function mints (a confirmation id, an idempotency token, the
 * SDK's invocation ids and retry jitter) is the same in a replay. mulberry32, as
 * ../clock/seeded-random.ts (this file is plain CommonJS).
 */
function seededRandomness(seed) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
  const fill = (view, offset = 0, size = view.byteLength - offset) => {
    const bytes = new Uint8Array(view.buffer, view.byteOffset + offset, size);
    for (let index = 0; index < bytes.length; index += 1) bytes[index] = next() & 0xff;
    return view;
  };
  const uuid = () => {
    const bytes = fill(new Uint8Array(16));
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    const hex = Buffer.from(bytes).toString('hex');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  };
  Math.random = () => next() / 4_294_967_296;
  const crypto = require('node:crypto');
  crypto.randomUUID = uuid;
  crypto.randomBytes = (size, callback) => {
    const bytes = fill(Buffer.alloc(size));
    if (typeof callback !== 'function') return bytes;
    process.nextTick(callback, null, bytes);
    return undefined;
  };
  crypto.randomFillSync = (buffer, offset, size) => fill(buffer, offset, size);
  crypto.getRandomValues = (array) => fill(array);
  for (const web of [globalThis.crypto, crypto.webcrypto]) {
    if (!web) continue;
    Object.defineProperty(web, 'randomUUID', { value: uuid, configurable: true, writable: true });
    Object.defineProperty(web, 'getRandomValues', {
      value: (array) => fill(array),
      configurable: true,
      writable: true,
    });
  }
}
if (workerData.randomSeed !== undefined) seededRandomness(workerData.randomSeed);

/**
 * Counted in shared memory, where the host reads them at once (a seeded clock's measure of a
 * sandbox at rest, host.ts expectCalls): [0] requests sent to the runtime's servers, [1] answers
 * handled, [2] messages about its timers posted to the host (armed, cancelled, waiting), [3]
 * requests the code has run on from for two turns of its event loop after sending them.
 */
const counted = workerData.calls ? new Int32Array(workerData.calls) : undefined;
const seeded = workerData.randomSeed !== undefined && counted !== undefined;

/**
 * Tells the host about the sandbox's timers. On a seeded clock each message is counted as posted
 * until the host has handled it: a timer armed while the invocation is parked on a request of its
 * own (the SDK arms its socket timers as the request goes) is on the clock before the clock picks
 * the next work, at the time it was armed, not at a moment the machine decides.
 */
function postTimerMessage(message) {
  if (seeded) Atomics.add(counted, 2, 1);
  parentPort.postMessage(message);
}

/** Whether an invocation is running (its timers are the runtime's, see virtualTimers). */
let invoking = false;
/** Its handler has returned (or thrown): it runs on to its answer, never waiting (settledBeforeAnswer). */
let settling = false;
const pendingTimers = new Map();
let nextTimerId = 1;
/** The invocation's requests to the runtime not answered yet. */
let requestsInFlight = 0;
let reportedWaiting = false;

/**
 * Tells the host whether the invocation only waits on its timers (some pending, no request of its
 * own in flight): the host then parks the invocation's hold on the virtual clock, so time moves
 * to the first of them. A request in flight is held by the server that serves it.
 */
function reportWaiting() {
  const waiting = waitsOnTimersOnly();
  if (waiting === reportedWaiting) return;
  if (waiting && workerData.randomSeed !== undefined) {
    confirmWaiting();
    return;
  }
  reportedWaiting = waiting;
  postTimerMessage({ kind: 'waiting', waiting });
}

function waitsOnTimersOnly() {
  return invoking && !settling && pendingTimers.size > 0 && requestsInFlight === 0;
}

/**
 * On a seeded clock, waiting is told only once the code has run on for two turns of the event
 * loop and still waits on its timers alone: code that arms a timer and then sends a request
 * (AbortSignal.timeout, then fetch) is not waiting, and telling it would let the clock pick the
 * next work at a moment the machine decides.
 */
let confirming = false;
/** Asks again while busy, at most this many times (a resource that never ends must not hold the clock). */
const MAX_BUSY_ASKS = 100;
function confirmWaiting(asked = 0) {
  if (confirming) return;
  confirming = true;
  afterTwoTurns(() => {
    confirming = false;
    if (reportedWaiting || !waitsOnTimersOnly()) return;
    // Still at work on something else (an immediate queued, a file or name lookup under way): it
    // goes on from there at a moment the machine decides; ask again once that is done.
    if (asked < MAX_BUSY_ASKS && busyBesidesTimers()) {
      confirmWaiting(asked + 1);
      return;
    }
    reportedWaiting = true;
    postTimerMessage({ kind: 'waiting', waiting: true });
  });
}

/**
 * On a seeded clock the host counts a timer's firing as an answer (host.ts): handled once its
 * callback's continuations have run for two turns, so a request the callback sends (a heartbeat
 * while another request of the invocation is on its way) is on its way before the clock moves on.
 */
function firingHandled() {
  if (seeded) afterTwoTurns(() => Atomics.add(counted, 1, 1));
}

/** What an idle sandbox keeps open: its ports to the host, sockets kept alive, its own timers. */
const IDLE_RESOURCES = new Set(['MessagePort', 'TCPSocketWrap', 'TTYWrap', 'PipeWrap', 'Timeout']);

/** Whether the event loop has work queued besides timers (an immediate, I/O under way). */
function busyBesidesTimers() {
  return process.getActiveResourcesInfo().some((resource) => !IDLE_RESOURCES.has(resource));
}

/**
 * Calls `callback` once the code has run on for two turns of the event loop: a seeded clock's
 * measure of "the sandbox went on from here" (an answer handled, a wait confirmed, an invocation
 * settled), long enough for what follows on microtasks and an I/O callback.
 */
function afterTwoTurns(callback) {
  setImmediate(() => setImmediate(callback));
}

/**
 * On the runtime's virtual clock, a timer set during an invocation (a back-off, a pause between a
 * supervisor's sweeps, AbortSignal.timeout) is armed on that clock by the host and fired at its
 * virtual time; while the sandbox waits only on such timers, the clock may move. Timers set outside
 * an invocation (module initialisation) and zero delays stay Node's. setInterval and
 * `node:timers/promises` setTimeout are built on it (below); `node:timers`' own exports, the
 * promises module's setInterval and setImmediate stay Node's.
 */
function virtualTimers() {
  const hostSetTimeout = globalThis.setTimeout;
  const hostClearTimeout = globalThis.clearTimeout;
  globalThis.setTimeout = function setTimeout(callback, delay, ...args) {
    const millis = Number(delay) || 0;
    if (!invoking || millis <= 0 || typeof callback !== 'function') {
      return hostSetTimeout(callback, delay, ...args);
    }
    const timerId = nextTimerId++;
    pendingTimers.set(timerId, () => callback(...args));
    postTimerMessage({ kind: 'timer', timerId, delayMillis: millis });
    reportWaiting();
    const cancel = () => {
      if (pendingTimers.delete(timerId)) {
        postTimerMessage({ kind: 'cancel', timerId });
        reportWaiting();
      }
    };
    return timerHandle(cancel, { timerId, [Symbol.toPrimitive]: () => timerId });
  };
  globalThis.clearTimeout = function clearTimeout(handle) {
    if (handle?.[CANCEL_VIRTUAL]) handle[CANCEL_VIRTUAL]();
    else hostClearTimeout(handle);
  };
  AbortSignal.timeout = function timeout(millis) {
    const controller = new AbortController();
    globalThis.setTimeout(
      () => controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')),
      millis,
    );
    return controller.signal;
  };
  virtualIntervals();
  virtualTimerPromises();
}

/** How clearTimeout and clearInterval cancel a timer of the virtual clock (its handle holds it). */
const CANCEL_VIRTUAL = Symbol('cancel a virtual timer');

/** A handle shaped like Node's Timeout for a virtual timer; clearing or closing it calls `cancel`. */
function timerHandle(cancel, fields) {
  const handle = {
    ...fields,
    [CANCEL_VIRTUAL]: cancel,
    ref: () => handle,
    unref: () => handle,
    hasRef: () => true,
    refresh: () => handle,
    close: () => {
      cancel();
      return handle;
    },
  };
  return handle;
}

/**
 * setInterval during an invocation: a chain of the virtual setTimeout above, re-armed before each
 * callback (a poll loop's interval fires on the clock, and the sandbox waits while it is pending).
 * clearInterval and clearTimeout both stop it, as in Node.
 */
function virtualIntervals() {
  const hostSetInterval = globalThis.setInterval;
  const hostClearInterval = globalThis.clearInterval;
  globalThis.setInterval = function setInterval(callback, delay, ...args) {
    const millis = Number(delay) || 0;
    if (!invoking || millis <= 0 || typeof callback !== 'function') {
      return hostSetInterval(callback, delay, ...args);
    }
    let stopped = false;
    let current;
    const arm = () => {
      current = globalThis.setTimeout(() => {
        if (stopped) return;
        arm();
        callback(...args);
      }, millis);
    };
    arm();
    return timerHandle(() => {
      stopped = true;
      globalThis.clearTimeout(current);
    }, {});
  };
  globalThis.clearInterval = function clearInterval(handle) {
    if (handle?.[CANCEL_VIRTUAL]) handle[CANCEL_VIRTUAL]();
    else hostClearInterval(handle);
  };
}

/**
 * `node:timers/promises` setTimeout during an invocation (`await setTimeout(ms)`, a common
 * back-off): on the virtual setTimeout, with its AbortSignal. Bundles require the module at call
 * time or after this ran (the handler loads later), so they get this one.
 */
function virtualTimerPromises() {
  const timersPromises = require('node:timers/promises');
  const hostSleep = timersPromises.setTimeout;
  timersPromises.setTimeout = function setTimeout(delay, value, options = {}) {
    if (!invoking || !(Number(delay) > 0)) return hostSleep(delay, value, options);
    const signal = options?.signal;
    const aborted = () =>
      Object.assign(new Error('The operation was aborted'), {
        name: 'AbortError',
        code: 'ABORT_ERR',
        cause: signal?.reason,
      });
    return new Promise((resolve, reject) => {
      if (signal?.aborted) {
        reject(aborted());
        return;
      }
      const onAbort = () => {
        globalThis.clearTimeout(timer);
        reject(aborted());
      };
      const timer = globalThis.setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve(value);
      }, delay);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  };
}
if (workerData.sharedTime) virtualTimers();

const LOOPBACK_HOST = /^(localhost|127\.0\.0\.1|\[::1\]|::1)$/i;

/** The running invocation's activity on the runtime's clock (named in its requests to the runtime). */
let activityId;
/** Requests the running invocation has sent so far: each names its number (callHeader). */
let callsSent = 0;

/** Waiting for the invocation's requests in flight to end (settledBeforeAnswer). */
const drainWaiters = [];

/** Counts a request of the invocation in flight; the function returned ends it (once). */
function inFlight() {
  requestsInFlight += 1;
  reportWaiting();
  let done = false;
  return () => {
    if (done) return;
    done = true;
    requestsInFlight -= 1;
    reportWaiting();
    if (requestsInFlight === 0) for (const wake of drainWaiters.splice(0)) wake();
  };
}

/**
 * On a seeded clock an invocation answers once its requests have ended and its code has run on for
 * two turns of the event loop: what it leaves behind (a request not awaited, the SDK clearing its
 * timers after a response) is done before the clock moves on, not at a moment the machine decides.
 */
async function settledBeforeAnswer() {
  if (workerData.randomSeed === undefined) return;
  // Its pending timers (the SDK's socket timeouts) are not what it waits on now: told waiting, the
  // clock would pick the next work while the answer is on its way, at a moment the machine decides.
  settling = true;
  reportWaiting();
  if (requestsInFlight > 0) await new Promise((resolve) => drainWaiters.push(resolve));
  await new Promise((resolve) => afterTwoTurns(resolve));
  // Timers still pending never fire: the host drops them at the answer (host.ts dropTimers).
  pendingTimers.clear();
}

/**
 * On the virtual clock, the sandbox's requests name its invocation's activity in a header
 * (ACTIVITY_HEADER of ../clock): the runtime's server that serves one holds the clock instead and
 * parks the invocation meanwhile, so while it waits (a long poll, a function it invokes) time may
 * move. fetch and node:http(s) requests both carry it, and are counted while in flight. Each also
 * carries its number among the invocation's requests (`callHeader`), in the order the code sent
 * them: a seeded clock orders requests sent together by it, not by the order they arrive in.
 */
function nameActivityInRequests() {
  const header = workerData.activityHeader;
  const callHeader = workerData.callHeader;
  /**
   * The next call's number; a call to a loopback server (the runtime's: only these arrive where the
   * host counts them) is also counted as sent, and its answer as handled once the code has run on
   * for two turns of the event loop after it (its next request sent by then).
   */
  const nextCall = (host) => {
    // Read only on a seeded clock (the host's expectCalls).
    const counts = seeded && LOOPBACK_HOST.test(host ?? '');
    if (counts) {
      Atomics.add(counted, 0, 1);
      // The code runs on after a send (the next of requests sent together may still be on its way
      // through the SDK's middleware) while the request parks the invocation at its server.
      afterTwoTurns(() => Atomics.add(counted, 3, 1));
    }
    const handled = () => {
      if (counts) afterTwoTurns(() => Atomics.add(counted, 1, 1));
    };
    return { number: String(++callsSent), handled };
  };
  const hostOf = (input) => {
    try {
      return new URL(input instanceof Request ? input.url : String(input)).hostname;
    } catch {
      return undefined;
    }
  };
  const hostFetch = globalThis.fetch;
  if (typeof hostFetch === 'function') {
    globalThis.fetch = function fetch(input, init) {
      if (!activityId) return hostFetch(input, init);
      const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
      headers.set(header, activityId);
      const call = nextCall(hostOf(input));
      headers.set(callHeader, call.number);
      const settle = inFlight();
      return hostFetch(input, { ...init, headers }).finally(() => {
        settle();
        call.handled();
      });
    };
  }
  for (const name of ['node:http', 'node:https']) {
    const module = require(name);
    const hostRequest = module.request;
    module.request = function request(...args) {
      // The caller's response callback (the SDK passes one) listens before any listener added here.
      let fromSandbox = false;
      const last = args.length - 1;
      if (typeof args[last] === 'function') {
        const callback = args[last];
        args[last] = function onResponse(response) {
          if (fromSandbox) withoutServerDate(response);
          return callback.call(this, response);
        };
      }
      const outgoing = hostRequest.apply(this, args);
      if (activityId && !outgoing.headersSent) {
        fromSandbox = LOOPBACK_HOST.test(outgoing.host ?? '');
        outgoing.setHeader(header, activityId);
        const call = nextCall(outgoing.host);
        outgoing.setHeader(callHeader, call.number);
        const settle = inFlight();
        let answered = false;
        const end = () => {
          settle();
          if (answered) return;
          answered = true;
          call.handled();
        };
        outgoing.once('response', (response) => {
          if (fromSandbox) withoutServerDate(response);
          response.once('end', end);
        });
        outgoing.once('close', end);
      }
      return outgoing;
    };
  }
}
if (workerData.sharedTime) nameActivityInRequests();

/**
 * The runtime's servers answer with the machine's Date, and a sandbox's time is the virtual clock's:
 * the AWS SDK takes the difference as the machine's clock skew and corrects its own clock by it, and
 * it marks an error answered across a correction over 4 minutes as retryable ('clock skew
 * corrected'). On a clock ahead of the machine's (years ahead on a seeded one) that skew moved with
 * the machine's seconds, so one run retried a ConditionalCheckFailed three times and another did
 * not: a claim lost a millisecond later, a supervisor's sweep one request short, a replay that
 * parted. A Lambda's clock is synchronised, so the SDK never corrects it on AWS: on the virtual
 * clock a sandbox does not see the Date of the runtime's answers (before the response callback or
 * any listener the code adds reads the headers).
 */
function withoutServerDate(response) {
  delete response.headers.date;
}

async function loadHandler() {
  const { codeDirectory, handler } = workerData;
  const separator = handler.lastIndexOf('.');
  if (separator <= 0) {
    throw Object.assign(new Error(`Bad handler '${handler}': expected <file>.<export>`), {
      name: 'Runtime.MalformedHandlerName',
    });
  }
  const modulePath = handler.slice(0, separator);
  const exportName = handler.slice(separator + 1);
  const file = ['.js', '.mjs', '.cjs']
    .map((extension) => join(codeDirectory, modulePath + extension))
    .find((candidate) => existsSync(candidate));
  if (!file) {
    throw Object.assign(new Error(`Cannot find module '${modulePath}' in ${codeDirectory}`), {
      name: 'Runtime.ImportModuleError',
    });
  }
  const loaded = file.endsWith('.mjs') ? await import(pathToFileURL(file).href) : require(file);
  const fn = loaded[exportName] ?? loaded.default?.[exportName];
  if (typeof fn !== 'function') {
    throw Object.assign(new Error(`${modulePath}.${exportName} is undefined or not exported`), {
      name: 'Runtime.HandlerNotFound',
    });
  }
  return fn;
}

function describeError(error) {
  if (error instanceof Error) {
    return {
      errorType: error.name && error.name !== 'Error' ? error.name : error.constructor?.name || 'Error',
      errorMessage: error.message,
      trace: String(error.stack ?? '').split('\n'),
    };
  }
  return { errorType: typeof error, errorMessage: String(error), trace: [] };
}

function contextFor(invocation) {
  const { functionName, functionArn, memorySizeMb, logGroupName } = workerData;
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: functionArn,
    memoryLimitInMB: String(memorySizeMb),
    awsRequestId: invocation.requestId,
    logGroupName,
    logStreamName: `local/[$LATEST]${workerData.workerId}`,
    getRemainingTimeInMillis: () => Math.max(0, invocation.deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

function run(fn, event, context) {
  // Callback-style handlers (event, context, callback) are still supported by the Node.js runtime.
  if (fn.length >= 3) {
    return new Promise((resolve, reject) => {
      const callback = (error, result) => (error ? reject(error) : resolve(result));
      const returned = fn(event, context, callback);
      if (returned && typeof returned.then === 'function') returned.then(resolve, reject);
    });
  }
  return Promise.resolve().then(() => fn(event, context));
}

parentPort.on('message', async (invocation) => {
  if (invocation.kind === 'fire') {
    // The host resumed the invocation's hold to fire the timer (host.ts onTimer): it waits again
    // only once told, even when the sandbox still waits on other timers. Told once the callback's
    // continuations have run (they may send a request or arm the next timer).
    reportedWaiting = false;
    const callback = pendingTimers.get(invocation.timerId);
    pendingTimers.delete(invocation.timerId);
    // Counted from here (two turns on), whatever the callback does: a callback that throws must not
    // leave the firing unhandled.
    firingHandled();
    setImmediate(reportWaiting);
    callback?.();
    return;
  }
  invoking = true;
  settling = false;
  activityId = invocation.activityId;
  callsSent = 0;
  process.env._X_AMZN_TRACE_ID = `Root=1-${invocation.requestId.slice(0, 8)}-local`;
  try {
    handlerPromise ??= loadHandler();
    const fn = await handlerPromise;
    const payload = await run(fn, JSON.parse(invocation.eventJson), contextFor(invocation));
    await settledBeforeAnswer();
    // Lambda returns the handler's result as JSON: undefined becomes null, class instances plain data.
    invoking = false;
    activityId = undefined;
    reportWaiting();
    parentPort.postMessage({ id: invocation.id, ok: true, payloadJson: JSON.stringify(payload ?? null) });
  } catch (error) {
    await settledBeforeAnswer();
    invoking = false;
    activityId = undefined;
    reportWaiting();
    parentPort.postMessage({ id: invocation.id, ok: false, error: describeError(error) });
  }
});
