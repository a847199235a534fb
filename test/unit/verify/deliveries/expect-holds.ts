/**
 * A model check that must hold, as the verify tests state it: run spin, print the measures, and fail
 * with the counterexample's steps as the difference (an empty trail is what passing looks like), so
 * a failing check reads as the actors' story rather than as a count.
 */
import { runSpin, type SpinCheck, type SpinModel, type SpinResult } from '../../../../lib/verify/spin';

export function expectHolds(model: SpinModel, check: SpinCheck): SpinResult {
  const result = runSpin(model, check);
  console.log(
    `${model.name} ${result.check}: bounds ${JSON.stringify(model.bounds)}; ${result.states} states, depth ${result.depth}, ${result.seconds} s`,
  );
  expect(result.trail?.steps.join('\n') ?? '').toBe('');
  expect(result).toMatchObject({ ok: true, errors: 0 });
  expect(result.incomplete).toBeUndefined();
  return result;
}
