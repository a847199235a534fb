/** The verifier's runner: a model in, an exhaustive result (and a readable trail) out. */
export { type RunSpinOptions, runSpin, type SpinCheck, trailSteps } from './run-spin';
export type { SpinModel } from './spin-model';
export type { SpinResult, SpinTrail } from './spin-result';
export { SpinUnavailableError } from './spin-unavailable-error';
