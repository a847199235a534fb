/**
 * Which property changes cause a resource's impact (the replacement's cause a finding names): one
 * reading of the diff for the upgrade check (check-upgrade.ts) and its stream-mapping rule
 * (stream-mapping-replacements.ts).
 */
import type { PropertyDifference, ResourceDifference, ResourceImpact } from '@aws-cdk/cloudformation-diff';

/** The properties whose change has one of `impacts`. */
export function propertiesWith(change: ResourceDifference, ...impacts: ResourceImpact[]): string[] {
  return Object.entries(change.propertyUpdates)
    .filter(([, difference]) =>
      impacts.includes((difference as PropertyDifference<unknown>).changeImpact as ResourceImpact),
    )
    .map(([name]) => name);
}
