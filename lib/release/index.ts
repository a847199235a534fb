/**
 * Release tooling (README, Releasing): the released templates a release is held to, and the upgrade
 * check that diffs the current templates against them. Not a wing: it knows CloudFormation and the
 * fixture folder, no stack.
 */
export {
  type AcknowledgedFinding,
  checkUpgrade,
  type UpgradeCheckOptions,
  type UpgradeReport,
} from './check-upgrade';
export { formatReport } from './format-report';
export { normalizeTemplate } from './normalize-template';
export {
  ACKNOWLEDGMENTS_FILE,
  RELEASED_DIR,
  type Release,
  readAcknowledgments,
  readReleasedTemplate,
  releasedTemplatePath,
  type StackAcknowledgment,
  writeReleasedTemplates,
} from './released-templates';
export { isStateful, STATEFUL_TYPES } from './stateful-types';
export type { CfnResource, CfnTemplate } from './template';
export {
  type Acknowledgment,
  describeFinding,
  LOSS_RULES,
  REFUSAL_RULES,
  type UpgradeFinding,
  type UpgradeRule,
} from './upgrade-finding';
