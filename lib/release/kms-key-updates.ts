/**
 * The properties of an AWS::KMS::Key CloudFormation refuses to change: "If you change the value of
 * the KeySpec, KeyUsage, Origin, or MultiRegion properties of an existing KMS key, the update request
 * fails, regardless of the value of the UpdateReplacePolicy attribute. This prevents you from
 * accidentally deleting a KMS key by changing any of its immutable property values."
 * (https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-kms-key.html).
 * AWS's resource specification, which @aws-cdk/cloudformation-diff reads, calls them plain updates.
 */
import { deepEqual } from '@aws-cdk/cloudformation-diff';

export const KMS_KEY_IMMUTABLE_PROPERTIES = ['KeySpec', 'KeyUsage', 'Origin', 'MultiRegion'] as const;

/** The immutable properties whose template value changes between `before` and `after`. */
export function changedImmutableKeyProperties(
  before: Readonly<Record<string, unknown>> | undefined,
  after: Readonly<Record<string, unknown>> | undefined,
): string[] {
  return KMS_KEY_IMMUTABLE_PROPERTIES.filter((property) => !deepEqual(before?.[property], after?.[property]));
}
