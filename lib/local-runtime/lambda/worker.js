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
 * requests, computes expiries and reads its deadline on the runtime's time; timers inside the
 * sandbox stay Node's (an invocation holds the virtual clock still while it runs). Fault hook
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
  process.env._X_AMZN_TRACE_ID = `Root=1-${invocation.requestId.slice(0, 8)}-local`;
  try {
    handlerPromise ??= loadHandler();
    const fn = await handlerPromise;
    const payload = await run(fn, JSON.parse(invocation.eventJson), contextFor(invocation));
    // Lambda returns the handler's result as JSON: undefined becomes null, class instances plain data.
    parentPort.postMessage({ id: invocation.id, ok: true, payloadJson: JSON.stringify(payload ?? null) });
  } catch (error) {
    parentPort.postMessage({ id: invocation.id, ok: false, error: describeError(error) });
  }
});
