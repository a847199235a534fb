/**
 * An upgrade report in lines, for the test's output and `npm run release:templates`: failures
 * first, then acknowledged losses with their reasons, then every other change.
 */
import type { UpgradeReport } from './check-upgrade';
import { describeFinding } from './upgrade-finding';

/** The report of one stack, headed by `title` (e.g. `demo/DroneDelivery`); empty when nothing differs. */
export function formatReport(title: string, report: UpgradeReport): string {
  const { failures, acknowledged, changes } = report;
  if (failures.length + acknowledged.length + changes.length === 0) return '';
  return [
    `${title}: ${failures.length} failure(s), ${acknowledged.length} acknowledged loss(es), ${changes.length} other change(s)`,
    ...failures.map((finding) => `  FAIL ${describeFinding(finding)}`),
    ...acknowledged.map(
      (finding) => `  acknowledged ${describeFinding(finding)} (because: ${finding.acknowledgment})`,
    ),
    ...changes.map((change) => `  ${change}`),
  ].join('\n');
}
