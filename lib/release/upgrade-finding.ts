/**
 * What the upgrade check says about one resource: the rule it breaks and why, in words. A rule is
 * either a refusal (CloudFormation would fail the update; nothing can acknowledge that) or a loss
 * (the update would go through and lose or strand data; a release that means it acknowledges it,
 * with its reason).
 */

/** Updates CloudFormation refuses: the stack update fails and rolls back. */
export const REFUSAL_RULES = [
  'custom-name-replaced',
  'gsi-creates-deletes',
  'gsi-changed-in-place',
  'lsi-changed',
  'kms-key-immutable-changed',
  'usage-plan-key-moved',
] as const;

/**
 * Updates that go through and lose (or strand) what a stateful resource holds, or that make a
 * stream's reader start over (stream-mapping-replaced: records processed twice or skipped).
 */
export const LOSS_RULES = [
  'replaced',
  'may-be-replaced',
  'deleted',
  'orphaned',
  'stream-replaced',
  'stream-mapping-replaced',
] as const;

export type RefusalRule = (typeof REFUSAL_RULES)[number];
export type LossRule = (typeof LOSS_RULES)[number];
export type UpgradeRule = RefusalRule | LossRule;

export interface UpgradeFinding {
  readonly logicalId: string;
  readonly type: string;
  readonly rule: UpgradeRule;
  /** Why, in words: what changes and what it costs. */
  readonly reason: string;
}

/** A loss a release means, written next to the fixtures until the next release (README, Releasing). */
export interface Acknowledgment {
  readonly logicalId: string;
  readonly rule: LossRule;
  /** Why the loss is intended (and what was done about the data). */
  readonly reason: string;
}

export const isRefusal = (rule: UpgradeRule): rule is RefusalRule =>
  (REFUSAL_RULES as readonly string[]).includes(rule);

/** `Id (Type): reason`, the line a failure prints. */
export const describeFinding = (finding: UpgradeFinding): string =>
  `${finding.logicalId} (${finding.type}) [${finding.rule}]: ${finding.reason}`;
