/**
 * The runtime's SNS: topics and their deliveries (topics.ts), message attributes, filter policies,
 * the SNS API over the AWS Query protocol (api.ts), and its IAM (topic-authorizer.ts).
 */
export {
  type FilterPolicy,
  type FilterPolicyScope,
  matchesFilterPolicy,
  parseFilterPolicy,
} from './filter-policy';
export { checkSnsMessageAttributes, type SnsMessageAttributes } from './message-attributes';
export { readSubscriptionAttributes, type SubscriptionAttributes } from './subscription-attributes';
export { SnsTopicAuthorizer, type TopicRequest } from './topic-authorizer';
export {
  DELIVERABLE_PROTOCOLS,
  LocalSns,
  type PublishRequest,
  type PublishResult,
  type SnsDelivery,
  type TopicOptions,
  type TopicSubscription,
} from './topics';
