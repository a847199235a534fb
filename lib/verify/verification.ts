/**
 * One verification run (`npm run verify`): each model's safety and liveness checks must pass, and
 * each broken variant must yield a counterexample. The report lists bounds, states, depth and time
 * per check, and every variant's trail as the actors' steps.
 */
import { deliveriesBrokenVariants, deliveriesModels } from './deliveries';
import { type BrokenVariant, brokenVariants, type OrdersBounds, ordersModel } from './orders';
import { runSpin, type SpinModel, type SpinResult } from './spin';

/** A model to check, or a variant that must fail, as a suite lists them. */
export interface VerificationSuite {
  readonly models: readonly SpinModel[];
  readonly variants: readonly Pick<BrokenVariant, 'name' | 'description' | 'model'>[];
}

export interface VerificationReport {
  readonly checks: readonly { readonly model: SpinModel; readonly result: SpinResult }[];
  readonly variants: readonly {
    readonly variant: VerificationSuite['variants'][number];
    readonly result: SpinResult;
  }[];
  /** What failed: a check that did not pass, a variant that did. Empty when everything held. */
  readonly problems: readonly string[];
}

/**
 * The orders protocol's suite. Within `bounds` (the default bounds unless given) the model is checked
 * for safety and liveness; the quick suite (npm test) checks liveness within LIVENESS_QUICK_BOUNDS,
 * as the search for acceptance cycles at the default bounds takes minutes (docs/verification.md).
 * The full run (neither quick nor bounds given) also checks safety within each of WIDER_BOUNDS.
 */
export function ordersSuite(
  options: { readonly bounds?: OrdersBounds; readonly quick?: boolean } = {},
): VerificationSuite {
  const bounds = options.bounds ?? {};
  const models = options.quick
    ? [
        { ...ordersModel(undefined, { bounds }), liveness: [] },
        ordersModel(undefined, { bounds: { ...bounds, ...LIVENESS_QUICK_BOUNDS }, name: 'orders-liveness' }),
      ]
    : [
        ordersModel(undefined, { bounds }),
        ...(options.bounds === undefined
          ? WIDER_BOUNDS.map((wider) => ({
              ...ordersModel(undefined, { bounds: wider.bounds, name: wider.name }),
              liveness: [],
              search: WIDER_SEARCH,
            }))
          : []),
      ];
  return { models, variants: brokenVariants(bounds) };
}

/** The quick suite's liveness bounds: no agent crash, one call per delivery (the rest as the default bounds). */
export const LIVENESS_QUICK_BOUNDS: OrdersBounds = { crashes: 0, agentCalls: 1 };

/**
 * The full run's wider bounds, each checked for safety (docs/verification.md has their measures): a
 * third step, then each fault of the environment on top of the default bounds, one at a time (all
 * together did not fit: docs/verification.md).
 */
export const WIDER_BOUNDS: readonly { readonly name: string; readonly bounds: OrdersBounds }[] = [
  { name: 'orders-3-steps', bounds: { steps: 3 } },
  { name: 'orders-duplicates', bounds: { duplicates: 1 } },
  { name: 'orders-losses', bounds: { losses: 1 } },
  { name: 'orders-start-failures', bounds: { startFailures: 1 } },
  // The operator's actions add a lifecycle each: within the liveness bounds (no crash, one call).
  { name: 'orders-operator-cancel', bounds: { ...LIVENESS_QUICK_BOUNDS, operatorCancels: 1 } },
  {
    name: 'orders-operator-compensation-retry',
    bounds: { ...LIVENESS_QUICK_BOUNDS, operatorCompensationRetries: 1 },
  },
];

/** Their search: up to 20 GB, with a hash table of 2^27 slots (1 GB), as 75 million states or more need. */
const WIDER_SEARCH = { hashBits: 27, memoryMb: 20_000 };

/**
 * The choreography's suite: the drone booking model (and, with duplicates, its liveness), the
 * Delivery service's record, and their broken variants (lambdas/choreography/DESIGN.md "Model-checked").
 */
export function deliveriesSuite(): VerificationSuite {
  return { models: deliveriesModels(), variants: deliveriesBrokenVariants() };
}

/** Runs every check of `suites`, in order, calling `progress` after each. */
export function verify(
  suites: readonly VerificationSuite[],
  progress: (line: string) => void = () => {},
): VerificationReport {
  const checks: { model: SpinModel; result: SpinResult }[] = [];
  const variants: { variant: VerificationSuite['variants'][number]; result: SpinResult }[] = [];
  const problems: string[] = [];
  for (const suite of suites) {
    for (const model of suite.models) {
      const checksOfModel = [
        { kind: 'safety' } as const,
        ...(model.liveness ?? []).map((ltl) => ({ kind: 'liveness', ltl }) as const),
      ];
      for (const check of checksOfModel) {
        const result = runSpin(model, check);
        checks.push({ model, result });
        progress(describeCheck(result));
        if (!result.ok) {
          problems.push(
            `${model.name} ${result.check}: ${result.trail?.violation ?? result.incomplete ?? 'failed'}${result.trail ? `\n${formatTrail(result)}` : ''}`,
          );
        }
      }
    }
    for (const variant of suite.variants) {
      const result = runSpin(variant.model, { kind: 'safety' }, { breadthFirst: true });
      variants.push({ variant, result });
      progress(
        `${variant.model.name}: ${result.errors > 0 ? 'counterexample found' : 'NO counterexample'} (${variant.description})`,
      );
      if (result.errors === 0 || result.trail === undefined || result.trail.steps.length === 0) {
        problems.push(
          `broken variant ${variant.name} yielded no counterexample: the model does not see that guard`,
        );
      }
    }
  }
  return { checks, variants, problems };
}

export function describeCheck(result: SpinResult): string {
  const verdict = result.ok ? 'holds' : result.errors > 0 ? 'VIOLATED' : `INCOMPLETE (${result.incomplete})`;
  return `${result.model} ${result.check}: ${verdict}; ${result.states.toLocaleString('en-US')} states, depth ${result.depth}, ${result.seconds} s`;
}

/** A trail as numbered actor steps, then what it violated. */
export function formatTrail(result: SpinResult): string {
  if (result.trail === undefined) return '';
  return [
    ...result.trail.steps.map((step, index) => `  ${String(index + 1).padStart(3)}. ${step}`),
    `  => ${result.trail.violation}`,
  ].join('\n');
}
