/**
 * The condition keys the local evaluator fills in, and where from. A policy naming any other key
 * fails the local deploy (policy-document.ts), because a condition on a key the runtime never sets
 * would hold or fail for a reason that has nothing to do with AWS. Keys are case-insensitive
 * ("Condition key names are not case-sensitive",
 * https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_condition.html), so
 * the catalogue and request contexts use lower case.
 *
 * Global keys: https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_condition-keys.html
 * Service keys: the Service Authorization Reference of each service (linked per key below).
 */

export interface ConditionKeyInfo {
  /** Who sets it, in one line (iam/README.md's table of enforced keys is built from these). */
  readonly setBy: string;
  /** A multivalued key (use ForAllValues/ForAnyValue). @default false */
  readonly multivalued?: boolean;
}

/** Exact keys, lower case. */
const EXACT: Readonly<Record<string, ConditionKeyInfo>> = {
  'aws:principalarn': { setBy: 'every request: the role (not the session), user or root ARN of the caller' },
  'aws:principalaccount': { setBy: 'every request by an IAM principal: its account' },
  'aws:principaltype': { setBy: 'every request by an IAM principal: AssumedRole, User or Account' },
  'aws:userid': { setBy: 'every request by an IAM principal: role id:session, user id, or the account' },
  'aws:username': { setBy: 'requests by IAM users only' },
  'aws:principalisawsservice': { setBy: 'every request: true for a service principal' },
  'aws:principalservicename': { setBy: 'requests by a service principal (sns.amazonaws.com...)' },
  'aws:sourcearn': {
    setBy:
      'service-to-service requests: the resource on whose behalf the service acts (topic, rule, alarm, API method)',
  },
  'aws:sourceaccount': { setBy: 'service-to-service requests: the account of aws:SourceArn' },
  'aws:securetransport': {
    setBy: 'every request: true (loopback only; SDKs use HTTPS on AWS, see iam/README.md)',
  },
  'aws:viaawsservice': {
    setBy: 'every request: false, except KMS use implied by DynamoDB, SQS or SNS: true',
  },
  'aws:calledvia': { setBy: 'KMS use implied by another service: that service', multivalued: true },
  'aws:requestedregion': { setBy: 'every request: the runtime region' },
  'aws:currenttime': { setBy: 'every request: the time of evaluation' },
  'aws:epochtime': { setBy: 'every request: the time of evaluation in epoch seconds' },
  // https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazondynamodb.html
  'dynamodb:attributes': {
    setBy:
      'DynamoDB item requests: the top-level attributes the request names (keys, projections, updates, conditions, filters)',
    multivalued: true,
  },
  'dynamodb:leadingkeys': { setBy: 'DynamoDB item requests: the partition key values', multivalued: true },
  'dynamodb:select': { setBy: 'DynamoDB reads: Select as sent, or what the request implies' },
  'dynamodb:returnvalues': {
    setBy:
      'DynamoDB writes: ReturnValues as sent, else NONE; transaction items: ReturnValuesOnConditionCheckFailure, else NONE',
  },
  'dynamodb:returnconsumedcapacity': {
    setBy: 'DynamoDB item requests: ReturnConsumedCapacity as sent, else NONE',
  },
  'dynamodb:enclosingoperation': {
    setBy: 'DynamoDB item actions inside a transaction: TransactWriteItems or TransactGetItems',
  },
  // https://docs.aws.amazon.com/service-authorization/latest/reference/list_awskeymanagementservice.html
  'kms:viaservice': { setBy: 'KMS use implied by another service: <service>.<region>.amazonaws.com' },
  'kms:calleraccount': { setBy: 'KMS use: the account of the caller' },
  'kms:encryptioncontextkeys': {
    setBy: 'KMS use implied by another service: the keys of its encryption context',
    multivalued: true,
  },
  // https://docs.aws.amazon.com/service-authorization/latest/reference/list_awslambda.html
  'lambda:functionurlauthtype': { setBy: 'lambda:InvokeFunctionUrl: the URL auth type (AWS_IAM or NONE)' },
  'lambda:invokedviafunctionurl': { setBy: 'lambda:InvokeFunction through a function URL: true' },
  // https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazoneventbridge.html
  'events:source': { setBy: 'events:PutEvents: the Source of each entry' },
  'events:detail-type': { setBy: 'events:PutEvents: the DetailType of each entry' },
  // https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazoncloudwatch.html
  'cloudwatch:namespace': { setBy: 'cloudwatch:PutMetricData: the namespace' },
};

/** Key families: a prefix and what follows it (`kms:EncryptionContext:<context key>`). */
const PREFIXES: Readonly<Record<string, ConditionKeyInfo>> = {
  'kms:encryptioncontext:': {
    setBy: 'KMS use implied by another service: each pair of its encryption context',
  },
};

/** What the evaluator knows of a key (lower-cased), or undefined when it does not set it. */
export function conditionKeyInfo(key: string): ConditionKeyInfo | undefined {
  const lower = key.toLowerCase();
  return (
    EXACT[lower] ??
    Object.entries(PREFIXES).find(([prefix]) => lower.startsWith(prefix) && lower.length > prefix.length)?.[1]
  );
}

/** Every key the evaluator sets, for the README and the tests. */
export function knownConditionKeys(): ReadonlyArray<readonly [string, ConditionKeyInfo]> {
  return [
    ...Object.entries(EXACT),
    ...Object.entries(PREFIXES).map(([prefix, info]) => [`${prefix}<key>`, info] as const),
  ];
}
