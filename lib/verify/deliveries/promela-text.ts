/**
 * Small Promela writing helpers shared by the deliveries models: a property asserted so that the
 * trail names it (a `@@ violated:` step before the assertion fails), the consumers' liveness, and a
 * name safe as a Promela identifier.
 */
export const promela = {
  /**
   * Liveness: every consumer finishes. Each bumps `finished` at its end; under weak fairness the
   * count must reach `consumers` (no livelock of lost races, no consumer blocked for good). The
   * pieces a model writes where it declares, ends a consumer, states its formulas and lists its
   * properties and liveness checks: all empty when `liveness` is off.
   */
  finishes(liveness: boolean, consumers: number) {
    if (!liveness) return { declaration: '', count: '', ltl: '', properties: [], checks: [] };
    return {
      declaration: 'byte finished;',
      count: '; finished++',
      ltl: `ltl finishes { <> (finished == ${consumers}) }`,
      properties: [
        'liveness, under weak fairness: every consumer finishes (no livelock of lost races, no consumer blocked)',
      ],
      checks: ['finishes'],
    };
  },
  /** `cond` asserted; when it fails the trail's last step says which property, in words. */
  check(condition: string, property: string): string {
    return `if :: !(${condition}) -> printf("@@ violated: ${property}\\n") :: else -> skip fi;\n  assert(${condition})`;
  },
  /** A value of the code (a status, an event type) as an identifier: `S_PickedUp`, `A_SCHEDULED`. */
  identifier(prefix: string, value: string): string {
    return `${prefix}_${value.replace(/[^A-Za-z0-9]/g, '_')}`;
  },
};
