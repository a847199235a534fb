/**
 * The upgrade check: what deploying `current` over a stack deployed from `released` would do,
 * judged resource by resource. @aws-cdk/cloudformation-diff (the diff `cdk diff` prints) tells each
 * resource's impact from AWS's resource specification: created, updated, replaced (a property whose
 * update requires replacement changed, or a resource it references by a property that does was
 * replaced), maybe replaced (a property whose replacement is conditional changed), destroyed or
 * orphaned (removed; orphaned when its DeletionPolicy is Retain). On top of it:
 *
 * - a stateful resource (STATEFUL_TYPES) replaced, maybe replaced, destroyed or orphaned loses what
 *   it holds, or strands it: a replaced resource whose UpdateReplacePolicy is Retain is kept outside
 *   the stack and the new one starts empty, so it counts all the same;
 * - a DynamoDB or Kinesis stream's event source mapping replaced (a property that requires it, a
 *   replaced stream, or a new logical id): the new one reads the stream from its starting position,
 *   not where the old one stopped, so records are processed twice or skipped
 *   (stream-mapping-replacements.ts);
 * - what CloudFormation refuses: replacing a resource that keeps its custom name (custom-names.ts),
 *   the table updates of table-updates.ts, the KMS key changes of kms-key-updates.ts, an API key
 *   moved to another usage plan of its stage (usage-plan-key-moves.ts);
 * - everything else is a change, reported as information.
 *
 * A loss a release means is acknowledged (logical id, rule, reason) and then reported, not failed;
 * an acknowledgment that matches nothing is reported so it does not outlive its reason. A refusal
 * cannot be acknowledged: CloudFormation would refuse it whatever the acknowledgment says.
 * Pure: templates in, a report out (the templates as normalizeTemplate leaves them, or any).
 */
import { fullDiff, type ResourceDifference, ResourceImpact } from '@aws-cdk/cloudformation-diff';
import { keptCustomName } from './custom-names';
import { changedImmutableKeyProperties } from './kms-key-updates';
import { propertiesWith } from './properties-with';
import { STATEFUL_TYPES } from './stateful-types';
import { streamMappingReplacements } from './stream-mapping-replacements';
import { indexChanges, tableUpdateBreaches } from './table-updates';
import type { CfnTemplate } from './template';
import {
  type Acknowledgment,
  isRefusal,
  LOSS_RULES,
  type UpgradeFinding,
  type UpgradeRule,
} from './upgrade-finding';
import { usagePlanKeyMoves } from './usage-plan-key-moves';

export interface AcknowledgedFinding extends UpgradeFinding {
  /** The acknowledgment's reason. */
  readonly acknowledgment: string;
}

export interface UpgradeReport {
  /** Refusals and unacknowledged losses: each fails the check. */
  readonly failures: readonly UpgradeFinding[];
  /** Losses the release acknowledged. */
  readonly acknowledged: readonly AcknowledgedFinding[];
  /** Acknowledgments that match no loss. */
  readonly unusedAcknowledgments: readonly Acknowledgment[];
  /** Every other difference, one line each. */
  readonly changes: readonly string[];
}

export interface UpgradeCheckOptions {
  /** Losses the release means. @default none */
  readonly acknowledgments?: readonly Acknowledgment[];
  /** Stateful types and what each holds. @default STATEFUL_TYPES */
  readonly statefulTypes?: Readonly<Record<string, string>>;
}

const TABLE = 'AWS::DynamoDB::Table';
const KMS_KEY = 'AWS::KMS::Key';

type Properties = Readonly<Record<string, unknown>>;

function validate(acknowledgments: readonly Acknowledgment[]): void {
  for (const acknowledgment of acknowledgments) {
    const name = `Acknowledgment of ${acknowledgment.logicalId} [${acknowledgment.rule}]`;
    if (!(LOSS_RULES as readonly string[]).includes(acknowledgment.rule)) {
      const refused = isRefusal(acknowledgment.rule as UpgradeRule);
      throw new Error(
        refused
          ? `${name}: CloudFormation refuses that update whatever is acknowledged; change the update instead`
          : `${name}: unknown rule (one of ${LOSS_RULES.join(', ')})`,
      );
    }
    if (typeof acknowledgment.reason !== 'string' || acknowledgment.reason.trim() === '') {
      throw new Error(`${name}: give the reason the loss is intended`);
    }
  }
}

/** The loss of a stateful resource's data, if its impact is one. */
function lossOf(
  logicalId: string,
  type: string,
  holds: string,
  change: ResourceDifference,
): UpgradeFinding | undefined {
  const finding = (rule: UpgradeFinding['rule'], reason: string): UpgradeFinding => ({
    logicalId,
    type,
    rule,
    reason,
  });
  switch (change.changeImpact) {
    case ResourceImpact.WILL_DESTROY:
      return finding('deleted', `is removed from the template and deleted, with ${holds}`);
    case ResourceImpact.WILL_ORPHAN:
      return finding(
        'orphaned',
        `is removed from the template; DeletionPolicy Retain keeps it outside the stack, where the app no longer reaches ${holds}`,
      );
    case ResourceImpact.WILL_REPLACE: {
      const cause = change.resourceTypeChanged
        ? `its type changes to ${change.newResourceType}`
        : `${propertiesWith(change, ResourceImpact.WILL_REPLACE).join(', ')} require(s) a new resource`;
      const old =
        change.oldValue?.UpdateReplacePolicy === 'Retain'
          ? 'the old one is kept (UpdateReplacePolicy Retain) outside the stack'
          : 'the old one is deleted';
      return finding(
        'replaced',
        `would be replaced (${cause}): the new one starts empty; ${old}, with ${holds}`,
      );
    }
    case ResourceImpact.MAY_REPLACE:
      return finding(
        'may-be-replaced',
        `may be replaced (${propertiesWith(change, ResourceImpact.MAY_REPLACE).join(', ')} change, and whether that replaces it depends on the values): a new one would start empty, without ${holds}`,
      );
    default:
      return undefined;
  }
}

/** What CloudFormation refuses of this change, if anything. */
function refusalsOf(logicalId: string, type: string, change: ResourceDifference): UpgradeFinding[] {
  if (change.resourceTypeChanged || change.oldValue === undefined || change.newValue === undefined) return [];
  const before = (change.oldValue.Properties ?? {}) as Properties;
  const after = (change.newValue.Properties ?? {}) as Properties;
  const found: UpgradeFinding[] = [];
  if (change.changeImpact === ResourceImpact.WILL_REPLACE) {
    const name = keptCustomName(type, before, after);
    if (name !== undefined) {
      found.push({
        logicalId,
        type,
        rule: 'custom-name-replaced',
        reason: `would be replaced (${propertiesWith(change, ResourceImpact.WILL_REPLACE).join(', ')}) but keeps its custom name ${JSON.stringify(name)}: CloudFormation does not replace a custom-named resource; give it a new name`,
      });
    }
    return found;
  }
  if (type === TABLE) {
    found.push(
      ...tableUpdateBreaches(before, after, logicalId).map((breach) => ({ logicalId, type, ...breach })),
    );
  }
  if (type === KMS_KEY) {
    const changed = changedImmutableKeyProperties(before, after);
    if (changed.length > 0) {
      found.push({
        logicalId,
        type,
        rule: 'kms-key-immutable-changed',
        reason: `changes ${changed.join(', ')}: CloudFormation refuses to change these on an existing key`,
      });
    }
  }
  return found;
}

const IMPACT_WORDS: Readonly<Record<ResourceImpact, string>> = {
  [ResourceImpact.WILL_CREATE]: 'added',
  [ResourceImpact.WILL_DESTROY]: 'removed (deleted)',
  [ResourceImpact.WILL_ORPHAN]: 'removed (retained)',
  [ResourceImpact.WILL_REPLACE]: 'replaced',
  [ResourceImpact.MAY_REPLACE]: 'may be replaced',
  [ResourceImpact.WILL_UPDATE]: 'updated',
  [ResourceImpact.WILL_IMPORT]: 'imported',
  [ResourceImpact.NO_CHANGE]: 'changed',
};

function changeLine(logicalId: string, type: string, change: ResourceDifference): string {
  const changed = [...Object.keys(change.propertyUpdates), ...Object.keys(change.otherChanges)];
  const what = change.isAddition || change.isRemoval || changed.length === 0 ? '' : `: ${changed.join(', ')}`;
  return `${logicalId} (${type}) ${IMPACT_WORDS[change.changeImpact]}${what}`;
}

/** The report of an upgrade from `released` to `current` (see the module's header). */
export function checkUpgrade(
  released: CfnTemplate,
  current: CfnTemplate,
  options: UpgradeCheckOptions = {},
): UpgradeReport {
  const { acknowledgments = [], statefulTypes = STATEFUL_TYPES } = options;
  validate(acknowledgments);
  const diff = fullDiff(released, current);
  const findings: UpgradeFinding[] = [];
  const streamReaders = streamMappingReplacements(released, current, diff);
  const planKeyMoves = usagePlanKeyMoves(released, current, diff);
  const changes: string[] = [];
  const indexEdits: string[] = [];
  diff.resources.forEachDifference((logicalId, change) => {
    const type = change.oldResourceType ?? change.newResourceType ?? 'an unknown type';
    const oldType = change.oldResourceType;
    const holds =
      oldType !== undefined && Object.hasOwn(statefulTypes, oldType) ? statefulTypes[oldType] : undefined;
    const own = [
      ...(holds === undefined ? [] : [lossOf(logicalId, type, holds, change)]),
      ...refusalsOf(logicalId, type, change),
      ...streamReaders.filter((finding) => finding.logicalId === logicalId),
      ...planKeyMoves.filter((finding) => finding.logicalId === logicalId),
    ].filter((finding): finding is UpgradeFinding => finding !== undefined);
    findings.push(...own);
    if (own.length === 0) changes.push(changeLine(logicalId, type, change));
    if (type === TABLE && change.isUpdate && !change.resourceTypeChanged) {
      const indexes = indexChanges(
        change.oldValue?.Properties ?? {},
        change.newValue?.Properties ?? {},
        logicalId,
      );
      if (indexes.created.length + indexes.deleted.length === 1) indexEdits.push(logicalId);
    }
  });
  for (const [section, differences] of [
    ['parameter', diff.parameters],
    ['condition', diff.conditions],
    ['output', diff.outputs],
  ] as const) {
    differences.forEachDifference((name, difference) => {
      changes.push(
        `${section} ${name} ${difference.isAddition ? 'added' : difference.isRemoval ? 'removed' : 'changed'}`,
      );
    });
  }
  const others = diff.resources.differenceCount - indexEdits.length;
  for (const table of indexEdits) {
    if (others > 0) {
      changes.push(
        `${table} adds or deletes a global secondary index in the same update as ${others} other resource change(s): AWS recommends updating no other resource then (a rolled-back index creation leaves the index to delete by hand)`,
      );
    }
  }

  const used = new Set<Acknowledgment>();
  const failures: UpgradeFinding[] = [];
  const acknowledged: AcknowledgedFinding[] = [];
  for (const finding of findings.sort((a, b) => a.logicalId.localeCompare(b.logicalId))) {
    const acknowledgment = isRefusal(finding.rule)
      ? undefined
      : acknowledgments.find((item) => item.logicalId === finding.logicalId && item.rule === finding.rule);
    if (acknowledgment) {
      used.add(acknowledgment);
      acknowledged.push({ ...finding, acknowledgment: acknowledgment.reason });
    } else {
      failures.push(finding);
    }
  }
  return {
    failures,
    acknowledged,
    unusedAcknowledgments: acknowledgments.filter((item) => !used.has(item)),
    changes: changes.sort(),
  };
}
