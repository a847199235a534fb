/**
 * The engine that runs executions (aws-local-stepfunctions), on the runtime's clock. The engine waits
 * with the global `setTimeout` and reads `Date.now()`: Wait states (Seconds, Timestamp and their
 * paths), Retry intervals, its own task and execution timers and its event times. On the wall clock
 * it is the module as installed. On another clock it is a copy of the module evaluated with
 * `setTimeout`, `clearTimeout` and `Date` bound to that clock (../clock/globals-on.ts), one copy per
 * clock: an hour's Wait ends when the clock reaches it, and a Timestamp is compared with the clock.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import * as installed from 'aws-local-stepfunctions';
import { globalsOn, type RuntimeClock } from '../clock';

export type StepFunctionsEngine = typeof installed;

const copies = new WeakMap<RuntimeClock, StepFunctionsEngine>();

/** The engine whose timers and `Date` are `clock`'s. */
export function engineOn(clock: RuntimeClock): StepFunctionsEngine {
  if (clock.mode === 'wall') return installed;
  let copy = copies.get(clock);
  if (!copy) {
    copy = evaluateOn(clock);
    copies.set(clock, copy);
  }
  return copy;
}

function evaluateOn(clock: RuntimeClock): StepFunctionsEngine {
  // The CommonJS build that `require` resolves (the package's "require" export).
  const file = require.resolve('aws-local-stepfunctions');
  const globals = globalsOn(clock);
  // The Function constructor of this realm (not vm's, which compiles in the main context, whose
  // built-ins are not a test sandbox's): the copy shares Promise, Error and the polyfills with us.
  const factory = new Function(
    'exports',
    'require',
    'module',
    '__filename',
    '__dirname',
    'setTimeout',
    'clearTimeout',
    'Date',
    `${readFileSync(file, 'utf8')}\n//# sourceURL=${file}`,
  );
  const module = { exports: {} as StepFunctionsEngine };
  factory(
    module.exports,
    createRequire(file),
    module,
    file,
    dirname(file),
    globals.setTimeout,
    globals.clearTimeout,
    globals.Date,
  );
  return module.exports;
}
