/**
 * A subscription's attributes, read the same way whether they come from a template
 * (AWS::SNS::Subscription properties, values possibly objects and booleans) or from the Subscribe
 * API (Attributes, every value a string): RawMessageDelivery, FilterPolicy, FilterPolicyScope and
 * RedrivePolicy share their names in both.
 */

import { invalidParameter, parseJsonAttribute } from './errors';
import { type FilterPolicy, parseFilterPolicy } from './filter-policy';

export interface SubscriptionAttributes {
  readonly rawMessageDelivery: boolean;
  readonly filterPolicy?: FilterPolicy;
  readonly deadLetterTargetArn?: string;
}

/** The attributes, or InvalidParameter as SNS answers a value it cannot take. */
export function readSubscriptionAttributes(
  attributes: Readonly<Record<string, unknown>>,
): SubscriptionAttributes {
  const filterPolicy = parseFilterPolicy(attributes.FilterPolicy, attributes.FilterPolicyScope);
  const deadLetterTargetArn = deadLetterTarget(attributes.RedrivePolicy);
  return {
    rawMessageDelivery: attributes.RawMessageDelivery === true || attributes.RawMessageDelivery === 'true',
    ...(filterPolicy ? { filterPolicy } : {}),
    ...(deadLetterTargetArn ? { deadLetterTargetArn } : {}),
  };
}

function deadLetterTarget(policy: unknown): string | undefined {
  if (policy === undefined || policy === null || policy === '') return undefined;
  const parsed = parseJsonAttribute(policy, 'RedrivePolicy');
  const arn = (parsed as { deadLetterTargetArn?: unknown } | null)?.deadLetterTargetArn;
  if (typeof arn !== 'string' || !arn.startsWith('arn:aws:sqs:')) {
    throw invalidParameter('RedrivePolicy: deadLetterTargetArn must be an SQS queue ARN');
  }
  return arn;
}
