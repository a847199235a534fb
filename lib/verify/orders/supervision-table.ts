/**
 * The supervisor's rule as a decision table: the code's own decideSupervision (protocol.ts) is asked
 * about every due record the model can hold (state, locked or not, failure counts within the bounds),
 * and its answers become `inline decide(...)`. Change the rule, and the table changes with it.
 */
import { SUPERVISED_STATES } from '../../../lambdas/scheduler-agent-supervisor/contracts';
import type {
  decideSupervision,
  SupervisionDecision,
  SupervisionTimings,
} from '../../../lambdas/scheduler-agent-supervisor/protocol';
import { symbolOf } from './promela-symbols';

/** The rule, as protocol.ts exports it (a broken variant passes another). */
export type SupervisionRule = typeof decideSupervision;

/** The decision kinds, numbered for Promela (`K_reset`…). */
export const DECISION_KINDS = [
  'skip',
  'reset',
  'fail',
  'restart',
  'reset-compensation',
  'fail-compensation',
  'restart-compensation',
] as const satisfies readonly SupervisionDecision['kind'][];

export function kindSymbol(kind: SupervisionDecision['kind']): string {
  return `K_${kind.replace(/-/g, '_')}`;
}

export function decisionDefines(): string {
  return DECISION_KINDS.map((kind, index) => `#define ${kindSymbol(kind)} ${index}`).join('\n');
}

/** Timings that make every bound of the model reachable: the failure thresholds are the bounds'. */
export function modelTimings(maxFailures: number, maxCompensationFailures: number): SupervisionTimings {
  return {
    maxFailures,
    maxCompensationFailures,
    retryBackoffSeconds: 1,
    extendedBackoffAfter: Math.max(0, maxFailures - 1),
    extendedBackoffSeconds: 2,
    startGraceSeconds: 1,
  };
}

/**
 * `inline decide(ps, locked, fc, cfc, kind, nfc, ncfc)`: what the rule decides for a due record
 * (its CompleteBy passed), with the failure counts it writes.
 */
export function supervisionTable(rule: SupervisionRule, timings: SupervisionTimings): string {
  const now = 1_000_000;
  const rows: string[] = [];
  for (const state of SUPERVISED_STATES) {
    for (const locked of [false, true]) {
      for (let failureCount = 0; failureCount <= timings.maxFailures; failureCount++) {
        for (
          let compensationFailures = 0;
          compensationFailures <= timings.maxCompensationFailures;
          compensationFailures++
        ) {
          const decision = rule(
            {
              orderId: 'model',
              processState: state,
              ...(locked && { lockedBy: 'holder' }),
              completeBy: now - 1,
              failureCount,
              attempt: 1,
              compensationFailureCount: compensationFailures,
            },
            now,
            timings,
          );
          const nfc = 'failureCount' in decision ? decision.failureCount : failureCount;
          const ncfc =
            'compensationFailureCount' in decision ? decision.compensationFailureCount : compensationFailures;
          rows.push(
            `  :: ps == ${symbolOf(state)} && locked == ${locked ? 1 : 0} && fc == ${failureCount} && cfc == ${compensationFailures} -> kind = ${kindSymbol(decision.kind)}; nfc = ${nfc}; ncfc = ${ncfc}`,
          );
        }
      }
    }
  }
  return [
    "/* The supervisor's rule (decideSupervision), asked about every due record within the bounds. */",
    'inline decide(ps, locked, fc, cfc, kind, nfc, ncfc) {',
    '  if',
    ...rows,
    '  :: else -> kind = K_skip; nfc = fc; ncfc = cfc',
    '  fi',
    '}',
  ].join('\n');
}

/** The states the supervisor's index holds (SUPERVISED_STATES), as a Promela condition on `ps`. */
export function supervisedCondition(variable: string): string {
  return `(${SUPERVISED_STATES.map((state) => `${variable} == ${symbolOf(state)}`).join(' || ')})`;
}
