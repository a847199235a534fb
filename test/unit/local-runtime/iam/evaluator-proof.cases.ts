// biome-ignore-all lint/suspicious/noTemplateCurlyInString: IAM policy variables (${aws:username}...), not JS templates.
/**
 * The proof of the local IAM evaluator: allow/deny cases taken from AWS's own pages on policy
 * evaluation, policy elements, condition operators, policy variables, DynamoDB fine-grained access,
 * DynamoDB transactions and KMS key policies. Each case names its page and section and, where it
 * adapts the page's example (a condition key the local evaluator does not set, such as a tag or a web
 * identity key, replaced by one it does), says how in `note`. DynamoDB cases are real DynamoDB
 * requests, turned into IAM checks by the gateway's own mapping (dynamodb/iam-requests.ts).
 * evaluator-proof.test.ts runs every case through the real evaluator.
 */
import type { TableInfo } from '../../../../lib/local-runtime/dynamodb/iam-requests';
import type { RequestContext } from '../../../../lib/local-runtime/iam/policy-document';
import {
  type Principal,
  roleSessionPrincipal,
  rootPrincipal,
  servicePrincipal,
  userPrincipal,
} from '../../../../lib/local-runtime/iam/principals';

export type Decision = 'allow' | 'implicit deny' | 'explicit deny';

/** One IAM check: an action on a resource, with the request's own condition keys. */
export interface PlainRequest {
  readonly action: string;
  readonly resource: string;
  readonly context?: RequestContext;
}

/** A DynamoDB API request, as an SDK sends it, in the region and account of DYNAMODB_SCOPE. */
export interface DynamoDbRequest {
  readonly dynamodb: { readonly operation: string; readonly request: Record<string, unknown> };
}

export interface ProofCase {
  /** What the case shows. */
  readonly name: string;
  /** The AWS page it comes from. */
  readonly page: string;
  /** The section (heading) of that page. */
  readonly section: string;
  /** How the case adapts the page's example, when it does. */
  readonly note?: string;
  readonly principal: Principal;
  /** The caller's identity policies (documents as written). */
  readonly identity?: readonly unknown[];
  /** The resource's own policy (bucket, queue...). */
  readonly resourcePolicy?: unknown;
  /** A KMS key policy: the resource policy, which must allow (or enable IAM policies to). */
  readonly keyPolicy?: unknown;
  readonly request: PlainRequest | DynamoDbRequest;
  readonly expected: Decision;
}

/** The time every case is evaluated at (aws:CurrentTime, aws:EpochTime). */
export const NOW = Date.parse('2026-01-15T12:00:00Z');
export const REGION = 'us-west-2';

const IAM = 'https://docs.aws.amazon.com/IAM/latest/UserGuide/';
const EVALUATION = `${IAM}reference_policies_evaluation-logic.html`;
const PRINCIPAL = `${IAM}reference_policies_elements_principal.html`;
const ACTION = `${IAM}reference_policies_elements_action.html`;
const RESOURCE = `${IAM}reference_policies_elements_resource.html`;
const NOT_ACTION = `${IAM}reference_policies_elements_notaction.html`;
const NOT_RESOURCE = `${IAM}reference_policies_elements_notresource.html`;
const NOT_PRINCIPAL = `${IAM}reference_policies_elements_notprincipal.html`;
const CONDITION = `${IAM}reference_policies_elements_condition.html`;
const OPERATORS = `${IAM}reference_policies_elements_condition_operators.html`;
const MULTIPLE = `${IAM}reference_policies_condition-logic-multiple-context-keys-or-values.html`;
const SETS = `${IAM}reference_policies_condition-single-vs-multi-valued-context-keys.html`;
/** The set-operator walk-through on the Thread table (the page as archived in awsdocs/iam-user-guide). */
const MULTI_VALUE = `${IAM}reference_policies_multi-value-conditions.html`;
const VARIABLES = `${IAM}reference_policies_variables.html`;
const KEYS = `${IAM}reference_policies_condition-keys.html`;
const DDB = 'https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/';
const FINE_GRAINED = `${DDB}specifying-conditions.html`;
const TRANSACTIONS = `${DDB}transaction-apis-iam.html`;
const KMS = 'https://docs.aws.amazon.com/kms/latest/developerguide/';
const KMS_DEFAULT = `${KMS}key-policy-default.html`;
const KMS_CONDITIONS = `${KMS}conditions-kms.html`;

const policy = (...Statement: unknown[]) => ({ Version: '2012-10-17', Statement });

// ---- Accounts and principals of the pages' examples ----------------------------------------------
const A = '123456789012';
const B = '111122223333';
const C = '444455556666';

// ---- DynamoDB: the tables of the developer guide's examples ------------------------------------
/**
 * GameScores: "a primary key consisting of a partition key (UserId) and sort key (GameTitle)"
 * (specifying-conditions.html). The page does not give TopScoreDateTimeIndex's key schema; example 4
 * lists GameTitle and TopScoreDateTime among the attributes, which its "Important" note requires for
 * index keys, so the index is taken as partitioned on GameTitle.
 */
export const DYNAMODB_TABLES: readonly TableInfo[] = [
  {
    name: 'GameScores',
    arn: `arn:aws:dynamodb:${REGION}:${A}:table/GameScores`,
    partitionKey: 'UserId',
    sortKey: 'GameTitle',
    indexPartitionKeys: { TopScoreDateTimeIndex: 'GameTitle' },
  },
  // "The GetItem operation requires the user to pass the ID attribute as the database table key".
  {
    name: 'Thread',
    arn: `arn:aws:dynamodb:${REGION}:${A}:table/Thread`,
    partitionKey: 'ID',
    indexPartitionKeys: {},
  },
  // The transaction page's tables; their key is not given, `pk` stands for it.
  {
    name: 'table04',
    arn: `arn:aws:dynamodb:${REGION}:${A}:table/table04`,
    partitionKey: 'pk',
    indexPartitionKeys: {},
  },
  {
    name: 'table01',
    arn: `arn:aws:dynamodb:${REGION}:${A}:table/table01`,
    partitionKey: 'pk',
    indexPartitionKeys: {},
  },
];
export const DYNAMODB_ACCOUNT = A;

const ddb = (operation: string, request: Record<string, unknown>): DynamoDbRequest => ({
  dynamodb: { operation, request },
});
const S = (value: string) => ({ S: value });
const N = (value: string) => ({ N: value });
const gameKey = (user: string, game = 'Meteor Blasters') => ({ UserId: S(user), GameTitle: S(game) });

// ---- Policies quoted from the pages ---------------------------------------------------------------

/** evaluation-logic: the policy attached to the carlossalazar user. */
const CARLOS_IDENTITY = policy(
  {
    Sid: 'AllowS3ListRead',
    Effect: 'Allow',
    Action: [
      's3:GetBucketLocation',
      's3:GetAccountPublicAccessBlock',
      's3:ListAccessPoints',
      's3:ListAllMyBuckets',
    ],
    Resource: 'arn:aws:s3:::*',
  },
  {
    Sid: 'AllowS3Self',
    Effect: 'Allow',
    Action: 's3:*',
    Resource: ['arn:aws:s3:::carlossalazar/*', 'arn:aws:s3:::carlossalazar'],
  },
  { Sid: 'DenyS3Logs', Effect: 'Deny', Action: 's3:*', Resource: 'arn:aws:s3:::*log*' },
);
/** evaluation-logic: the bucket policy of the carlossalazar bucket. */
const CARLOS_BUCKET = policy({
  Effect: 'Allow',
  Principal: { AWS: `arn:aws:iam::${A}:user/carlossalazar` },
  Action: 's3:*',
  Resource: ['arn:aws:s3:::carlossalazar/*', 'arn:aws:s3:::carlossalazar'],
});
const carlos = userPrincipal(A, 'carlossalazar');

/** evaluation-logic, "The difference between explicit and implicit denies". */
const GET_LIST_DENY_REPORTS = policy(
  { Sid: 'AllowGetList', Effect: 'Allow', Action: ['iam:Get*', 'iam:List*'], Resource: '*' },
  { Sid: 'DenyReports', Effect: 'Deny', Action: 'iam:*Report', Resource: '*' },
);

const QUEUE = `arn:aws:sqs:${REGION}:${B}:example-queue`;
const sessionOfExampleRole = roleSessionPrincipal(
  `arn:aws:iam::${B}:role/examplerole`,
  'examplerolesessionname',
);
const queuePolicy = (AWS: string) =>
  policy({ Effect: 'Allow', Principal: { AWS }, Action: 'sqs:SendMessage', Resource: QUEUE });
const sendToQueue: PlainRequest = { action: 'sqs:SendMessage', resource: QUEUE };

/** notaction: "all of the Amazon S3 actions ... except for deleting a bucket". */
const ALL_S3_BUT_DELETE_BUCKET = policy({
  Effect: 'Allow',
  NotAction: 's3:DeleteBucket',
  Resource: 'arn:aws:s3:::*',
});
/** notaction: "every action in every AWS service except for IAM". */
const ALL_BUT_IAM = policy({ Effect: 'Allow', NotAction: 'iam:*', Resource: '*' });

/** notresource: the HRPayroll group's policy. */
const HR_PAYROLL_DENY = {
  Effect: 'Deny',
  Action: 's3:*',
  NotResource: ['arn:aws:s3:::HRBucket/Payroll', 'arn:aws:s3:::HRBucket/Payroll/*'],
};
const ALLOW_EVERYTHING = { Effect: 'Allow', Action: '*', Resource: '*' };

/** notprincipal: "IAM user in the same or a different account". */
const NOT_BOB = policy({
  Effect: 'Deny',
  NotPrincipal: { AWS: [`arn:aws:iam::${C}:user/Bob`, `arn:aws:iam::${C}:root`] },
  Action: 's3:*',
  Resource: ['arn:aws:s3:::BUCKETNAME', 'arn:aws:s3:::BUCKETNAME/*'],
});
/** notprincipal: "IAM role in the same or different account". */
const NOT_AUDIT_APP = policy({
  Effect: 'Deny',
  NotPrincipal: {
    AWS: [
      `arn:aws:sts::${C}:assumed-role/cross-account-read-only-role/cross-account-audit-app`,
      `arn:aws:iam::${C}:role/cross-account-read-only-role`,
      `arn:aws:iam::${C}:root`,
    ],
  },
  Action: 's3:*',
  Resource: ['arn:aws:s3:::Bucket_AccountAudit', 'arn:aws:s3:::Bucket_AccountAudit/*'],
});
const S3_ALL = policy({ Effect: 'Allow', Action: 's3:*', Resource: '*' });
const auditRole = `arn:aws:iam::${C}:role/cross-account-read-only-role`;

/** An identity policy allowing `action` on `*` under one condition block. */
const allowWhen = (action: string, Condition: unknown) =>
  policy({ Effect: 'Allow', Action: action, Resource: '*', Condition });
const david = userPrincipal(A, 'David');
const adele = userPrincipal(A, 'Adele');
const gameSession = roleSessionPrincipal(`arn:aws:iam::${A}:role/GameRole`, 'game-app');
const listObjects: PlainRequest = { action: 's3:ListBucket', resource: 'arn:aws:s3:::example_bucket' };

/** condition operators, ARN section: the pattern and the request value of the StringLike/ArnLike example. */
const FINANCE_PATTERN = 'arn:aws:someservice:*:111122223333:finance/*';
const STORE_ARN = 'arn:aws:someservice:us-east-2:999999999999:store/abc:111122223333:finance/document.txt';
const snsToQueue = (operator: string) =>
  policy({
    Effect: 'Allow',
    Principal: { Service: 'sns.amazonaws.com' },
    Action: 'sqs:SendMessage',
    Resource: QUEUE,
    Condition: { [operator]: { 'aws:SourceArn': FINANCE_PATTERN } },
  });

/** condition logic: values of one key OR'ed, keys and operators AND'ed. */
const BOB_OR_ALICE_OF_A = allowWhen('s3:ListBucket', {
  StringEquals: { 'aws:username': ['alice', 'bob'] },
  StringEqualsIgnoreCase: { 'aws:PrincipalAccount': A },
});

/** variables: "create, use, and delete queues that have their names ... in the us-east-2 Region". */
const OWN_QUEUES = {
  Sid: 'AllQueueActions',
  Effect: 'Allow',
  Action: 'sqs:*',
  Resource: 'arn:aws:sqs:us-east-2:*:${aws:username}-queue',
};
const queueOf = (name: string): PlainRequest => ({
  action: 'sqs:SendMessage',
  resource: `arn:aws:sqs:us-east-2:${A}:${name}-queue`,
});
const alice = userPrincipal(A, 'alice');
/** GetItem on GameScores limited to partition keys matching `value` (special variables). */
const STAR_PARTITION = (operator: string, value: string) =>
  policy({
    Effect: 'Allow',
    Action: 'dynamodb:GetItem',
    Resource: `arn:aws:dynamodb:us-west-2:${A}:table/GameScores`,
    Condition: { [operator]: { 'dynamodb:LeadingKeys': [value] } },
  });

// ---- DynamoDB fine-grained access (specifying-conditions.html) ----------------------------------
/**
 * The overview's GameRole policy. Adapted: the page's `${www.amazon.com:user_id}` (web identity
 * federation, which the local account has not) is `${aws:username}`, so the caller is an IAM user
 * whose name is its UserId.
 */
const GAME_SCORES_OVERVIEW = policy({
  Sid: 'AllowAccessToOnlyItemsMatchingUserID',
  Effect: 'Allow',
  Action: [
    'dynamodb:GetItem',
    'dynamodb:BatchGetItem',
    'dynamodb:Query',
    'dynamodb:PutItem',
    'dynamodb:UpdateItem',
    'dynamodb:DeleteItem',
    'dynamodb:BatchWriteItem',
  ],
  Resource: [`arn:aws:dynamodb:us-west-2:${A}:table/GameScores`],
  Condition: {
    'ForAllValues:StringEquals': {
      'dynamodb:LeadingKeys': ['${aws:username}'],
      'dynamodb:Attributes': ['UserId', 'GameTitle', 'Wins', 'Losses', 'TopScore', 'TopScoreDateTime'],
    },
    StringEqualsIfExists: { 'dynamodb:Select': 'SPECIFIC_ATTRIBUTES' },
  },
});
const GAME_OVERVIEW_NOTE =
  'Adapted: ${aws:username} (an IAM user named after its UserId) for ${www.amazon.com:user_id}.';
/** Example 1, same adaptation. */
const FULL_ACCESS_TO_USER_ITEMS = policy({
  Sid: 'FullAccessToUserItems',
  Effect: 'Allow',
  Action: [
    'dynamodb:GetItem',
    'dynamodb:BatchGetItem',
    'dynamodb:Query',
    'dynamodb:PutItem',
    'dynamodb:UpdateItem',
    'dynamodb:DeleteItem',
    'dynamodb:BatchWriteItem',
  ],
  Resource: [`arn:aws:dynamodb:us-west-2:${A}:table/GameScores`],
  Condition: { 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': ['${aws:username}'] } },
});
/** Example 2. */
const LIMIT_TO_SPECIFIC_ATTRIBUTES = policy({
  Sid: 'LimitAccessToSpecificAttributes',
  Effect: 'Allow',
  Action: [
    'dynamodb:UpdateItem',
    'dynamodb:GetItem',
    'dynamodb:Query',
    'dynamodb:BatchGetItem',
    'dynamodb:Scan',
  ],
  Resource: [`arn:aws:dynamodb:us-west-2:${A}:table/GameScores`],
  Condition: {
    'ForAllValues:StringEquals': { 'dynamodb:Attributes': ['UserId', 'TopScore'] },
    StringEqualsIfExists: {
      'dynamodb:Select': 'SPECIFIC_ATTRIBUTES',
      'dynamodb:ReturnValues': ['NONE', 'UPDATED_OLD', 'UPDATED_NEW'],
    },
  },
});
/** Example 3. */
const PREVENT_UPDATES_ON_CERTAIN_ATTRIBUTES = policy({
  Sid: 'PreventUpdatesOnCertainAttributes',
  Effect: 'Allow',
  Action: ['dynamodb:UpdateItem'],
  Resource: `arn:aws:dynamodb:us-west-2:${A}:table/GameScores`,
  Condition: {
    'ForAllValues:StringNotLike': { 'dynamodb:Attributes': ['FreeGamesAvailable', 'BossLevelUnlocked'] },
    StringEquals: { 'dynamodb:ReturnValues': ['NONE', 'UPDATED_OLD', 'UPDATED_NEW'] },
  },
});
const INDEX = `arn:aws:dynamodb:us-west-2:${A}:table/GameScores/index/TopScoreDateTimeIndex`;
/** Example 4, first policy. */
const QUERY_ONLY_PROJECTED = policy({
  Sid: 'QueryOnlyProjectedIndexAttributes',
  Effect: 'Allow',
  Action: ['dynamodb:Query'],
  Resource: [INDEX],
  Condition: {
    'ForAllValues:StringEquals': {
      'dynamodb:Attributes': ['TopScoreDateTime', 'GameTitle', 'Wins', 'Losses', 'Attempts'],
    },
    StringEquals: { 'dynamodb:Select': 'SPECIFIC_ATTRIBUTES' },
  },
});
/** Example 4, second policy. */
const QUERY_ALL_INDEX_ATTRIBUTES = policy({
  Sid: 'QueryAllIndexAttributes',
  Effect: 'Allow',
  Action: ['dynamodb:Query'],
  Resource: [INDEX],
  Condition: { StringEquals: { 'dynamodb:Select': 'ALL_PROJECTED_ATTRIBUTES' } },
});
const player = userPrincipal(A, 'player-42');
const queryIndex = (extra: Record<string, unknown>) =>
  ddb('Query', {
    TableName: 'GameScores',
    IndexName: 'TopScoreDateTimeIndex',
    KeyConditionExpression: 'GameTitle = :game',
    ExpressionAttributeValues: { ':game': S('Meteor Blasters') },
    ...extra,
  });

// ---- DynamoDB transactions (transaction-apis-iam.html) -----------------------------------------
const TX_ACTIONS = [
  'dynamodb:ConditionCheckItem',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:GetItem',
];
const TX_EXAMPLE_1 = policy({
  Effect: 'Allow',
  Action: TX_ACTIONS,
  Resource: ['arn:aws:dynamodb:*:*:table/table04'],
});
const TX_EXAMPLE_2 = policy({
  Effect: 'Allow',
  Action: TX_ACTIONS,
  Resource: ['arn:aws:dynamodb:*:*:table/table04'],
  Condition: {
    'ForAnyValue:StringEquals': { 'dynamodb:EnclosingOperation': ['TransactWriteItems', 'TransactGetItems'] },
  },
});
const TX_EXAMPLE_3 = policy(
  {
    Effect: 'Deny',
    Action: TX_ACTIONS,
    Resource: ['arn:aws:dynamodb:*:*:table/table04'],
    Condition: {
      'ForAnyValue:StringEquals': {
        'dynamodb:EnclosingOperation': ['TransactWriteItems', 'TransactGetItems'],
      },
    },
  },
  {
    Effect: 'Allow',
    Action: ['dynamodb:PutItem', 'dynamodb:DeleteItem', 'dynamodb:GetItem', 'dynamodb:UpdateItem'],
    Resource: ['arn:aws:dynamodb:*:*:table/table04'],
  },
);
const TX_EXAMPLE_4 = policy({
  Effect: 'Allow',
  Action: TX_ACTIONS,
  Resource: 'arn:aws:dynamodb:*:*:table/table01',
  Condition: { StringEqualsIfExists: { 'dynamodb:ReturnValues': 'NONE' } },
});
const txWriter = roleSessionPrincipal(`arn:aws:iam::${A}:role/OrderWriter`, 'order-fn');
const putOrder = (table: string) => ({ TableName: table, Item: { pk: S('order-1'), status: S('NEW') } });
const transactWrite = (...TransactItems: unknown[]) => ddb('TransactWriteItems', { TransactItems });

// ---- KMS key policies -------------------------------------------------------------------------------
const KEY = `arn:aws:kms:${REGION}:${B}:key/1234abcd-12ab-34cd-56ef-1234567890ab`;
const ENABLE_IAM = {
  Sid: 'Enable IAM policies',
  Effect: 'Allow',
  Principal: { AWS: `arn:aws:iam::${B}:root` },
  Action: 'kms:*',
  Resource: '*',
};
const KEY_ADMINISTRATORS = {
  Sid: 'Allow access for Key Administrators',
  Effect: 'Allow',
  Principal: { AWS: [`arn:aws:iam::${B}:user/KMSAdminUser`, `arn:aws:iam::${B}:role/KMSAdminRole`] },
  Action: [
    'kms:Create*',
    'kms:Describe*',
    'kms:Enable*',
    'kms:List*',
    'kms:Put*',
    'kms:Update*',
    'kms:Revoke*',
    'kms:Disable*',
    'kms:Get*',
    'kms:Delete*',
    'kms:TagResource',
    'kms:UntagResource',
    'kms:ScheduleKeyDeletion',
    'kms:CancelKeyDeletion',
  ],
  Resource: '*',
};
const KEY_USERS = {
  Sid: 'Allow use of the key',
  Effect: 'Allow',
  Principal: {
    AWS: [
      `arn:aws:iam::${B}:user/ExampleUser`,
      `arn:aws:iam::${B}:role/ExampleRole`,
      `arn:aws:iam::${C}:root`,
    ],
  },
  Action: ['kms:Encrypt', 'kms:Decrypt', 'kms:ReEncrypt*', 'kms:GenerateDataKey*', 'kms:DescribeKey'],
  Resource: '*',
};
const exampleRoleSession = roleSessionPrincipal(`arn:aws:iam::${B}:role/ExampleRole`, 'example-fn');
const decrypt: PlainRequest = { action: 'kms:Decrypt', resource: KEY };
const DECRYPT_WITH_KEY = policy({ Effect: 'Allow', Action: 'kms:Decrypt', Resource: KEY });
/** conditions-kms, kms:ViaService: ExampleUser may use the key only through EC2 or RDS in us-west-2. */
const VIA_EC2_OR_RDS = policy({
  Effect: 'Allow',
  Principal: { AWS: `arn:aws:iam::${B}:user/ExampleUser` },
  Action: [
    'kms:Encrypt',
    'kms:Decrypt',
    'kms:ReEncrypt*',
    'kms:GenerateDataKey*',
    'kms:CreateGrant',
    'kms:ListGrants',
    'kms:DescribeKey',
  ],
  Resource: '*',
  Condition: {
    StringEquals: { 'kms:ViaService': ['ec2.us-west-2.amazonaws.com', 'rds.us-west-2.amazonaws.com'] },
  },
});
const NOT_VIA_LAMBDA = {
  Effect: 'Deny',
  Principal: { AWS: `arn:aws:iam::${B}:user/ExampleUser` },
  Action: ['kms:Encrypt'],
  Resource: '*',
  Condition: { StringEquals: { 'kms:ViaService': ['lambda.us-west-2.amazonaws.com'] } },
};
const exampleUser = userPrincipal(B, 'ExampleUser');

export const CASES: readonly ProofCase[] = [
  // ==== Policy evaluation logic ====================================================================
  {
    name: "an explicit deny in Carlos's identity policy wins over every allow (carlossalazar-logs)",
    page: EVALUATION,
    section: 'Example identity-based and resource-based policy evaluation',
    principal: carlos,
    identity: [CARLOS_IDENTITY],
    request: { action: 's3:PutObject', resource: 'arn:aws:s3:::carlossalazar-logs/notes.txt' },
    expected: 'explicit deny',
  },
  {
    name: 'both the identity policy and the bucket policy allow Carlos to save to carlossalazar',
    page: EVALUATION,
    section: 'Example identity-based and resource-based policy evaluation',
    principal: carlos,
    identity: [CARLOS_IDENTITY],
    resourcePolicy: CARLOS_BUCKET,
    request: { action: 's3:PutObject', resource: 'arn:aws:s3:::carlossalazar/notes.txt' },
    expected: 'allow',
  },
  {
    name: 'the bucket policy alone allows: one of the two allowing is enough within an account',
    page: EVALUATION,
    section: 'Example identity-based and resource-based policy evaluation',
    principal: carlos,
    resourcePolicy: CARLOS_BUCKET,
    request: { action: 's3:PutObject', resource: 'arn:aws:s3:::carlossalazar/notes.txt' },
    expected: 'allow',
  },
  {
    name: 'the identity policy alone allows (AllowS3Self, no bucket policy considered)',
    page: EVALUATION,
    section: 'Example identity-based and resource-based policy evaluation',
    principal: carlos,
    identity: [CARLOS_IDENTITY],
    request: { action: 's3:GetObject', resource: 'arn:aws:s3:::carlossalazar/notes.txt' },
    expected: 'allow',
  },
  {
    name: 'AllowGetList allows iam:GetUser',
    page: EVALUATION,
    section: 'The difference between explicit and implicit denies',
    principal: david,
    identity: [GET_LIST_DENY_REPORTS],
    request: { action: 'iam:GetUser', resource: `arn:aws:iam::${A}:user/David` },
    expected: 'allow',
  },
  {
    name: 'iam:CreatePolicy matches no statement: implicitly denied',
    page: EVALUATION,
    section: 'The difference between explicit and implicit denies',
    principal: david,
    identity: [GET_LIST_DENY_REPORTS],
    request: { action: 'iam:CreatePolicy', resource: `arn:aws:iam::${A}:policy/reports` },
    expected: 'implicit deny',
  },
  {
    name: 'iam:GetOrganizationsAccessReport matches both iam:Get* and iam:*Report: the deny wins',
    page: EVALUATION,
    section: 'The difference between explicit and implicit denies',
    principal: david,
    identity: [GET_LIST_DENY_REPORTS],
    request: { action: 'iam:GetOrganizationsAccessReport', resource: '*' },
    expected: 'explicit deny',
  },
  {
    name: 'another policy granting iam:GenerateCredentialReport does not lift DenyReports',
    page: EVALUATION,
    section: 'The difference between explicit and implicit denies',
    principal: david,
    identity: [
      GET_LIST_DENY_REPORTS,
      policy({ Effect: 'Allow', Action: 'iam:GenerateCredentialReport', Resource: '*' }),
    ],
    request: { action: 'iam:GenerateCredentialReport', resource: '*' },
    expected: 'explicit deny',
  },
  {
    name: 'a user without policies is implicitly denied',
    page: EVALUATION,
    section: 'Determining whether a request is allowed or denied within an account',
    principal: adele,
    request: { action: 's3:ListBucket', resource: 'arn:aws:s3:::example_bucket' },
    expected: 'implicit deny',
  },
  {
    name: 'the account root user has full access without any policy',
    page: EVALUATION,
    section: 'Determining whether a request is allowed or denied within an account',
    principal: rootPrincipal(A),
    request: { action: 's3:DeleteBucket', resource: 'arn:aws:s3:::example_bucket' },
    expected: 'allow',
  },
  {
    name: "an explicit deny overrides even the root user's access",
    page: EVALUATION,
    section: 'Determining whether a request is allowed or denied within an account',
    principal: rootPrincipal(A),
    resourcePolicy: policy({
      Effect: 'Deny',
      Principal: { AWS: A },
      Action: 's3:DeleteBucket',
      Resource: 'arn:aws:s3:::example_bucket',
    }),
    request: { action: 's3:DeleteBucket', resource: 'arn:aws:s3:::example_bucket' },
    expected: 'explicit deny',
  },
  {
    name: 'a resource policy naming the role session allows it without an identity policy',
    page: EVALUATION,
    section: 'Determining whether a request is allowed or denied within an account (Resource-based policies)',
    principal: sessionOfExampleRole,
    resourcePolicy: queuePolicy(sessionOfExampleRole.arn),
    request: sendToQueue,
    expected: 'allow',
  },
  {
    name: 'a resource policy naming the role allows its sessions (only boundaries or session policies limit it, and the local account has none)',
    page: EVALUATION,
    section: 'Determining whether a request is allowed or denied within an account (Resource-based policies)',
    principal: sessionOfExampleRole,
    resourcePolicy: queuePolicy(`arn:aws:iam::${B}:role/examplerole`),
    request: sendToQueue,
    expected: 'allow',
  },
  {
    name: 'a resource policy naming one session of a role does not allow another session of it',
    page: EVALUATION,
    section: 'Determining whether a request is allowed or denied within an account (Resource-based policies)',
    principal: roleSessionPrincipal(`arn:aws:iam::${B}:role/examplerole`, 'someothersession'),
    resourcePolicy: queuePolicy(sessionOfExampleRole.arn),
    request: sendToQueue,
    expected: 'implicit deny',
  },
  {
    name: 'a resource policy naming the IAM user allows it without an identity policy',
    page: EVALUATION,
    section: 'Determining whether a request is allowed or denied within an account (Resource-based policies)',
    principal: userPrincipal(B, 'exampleuser'),
    resourcePolicy: queuePolicy(`arn:aws:iam::${B}:user/exampleuser`),
    request: sendToQueue,
    expected: 'allow',
  },
  // ==== Principal: account principals delegate ======================================================
  {
    name: 'a resource policy naming the account (by id) grants a user nothing by itself',
    page: PRINCIPAL,
    section: 'AWS account principals',
    principal: userPrincipal(B, 'exampleuser'),
    resourcePolicy: queuePolicy(B),
    request: sendToQueue,
    expected: 'implicit deny',
  },
  {
    name: 'a resource policy naming the account (by root ARN) grants a user nothing by itself either',
    page: PRINCIPAL,
    section: 'AWS account principals',
    principal: userPrincipal(B, 'exampleuser'),
    resourcePolicy: queuePolicy(`arn:aws:iam::${B}:root`),
    request: sendToQueue,
    expected: 'implicit deny',
  },
  {
    name: "the account delegates: the user's identity policy allows",
    page: PRINCIPAL,
    section: 'AWS account principals',
    principal: userPrincipal(B, 'exampleuser'),
    identity: [policy({ Effect: 'Allow', Action: 'sqs:SendMessage', Resource: QUEUE })],
    resourcePolicy: queuePolicy(`arn:aws:iam::${B}:root`),
    request: sendToQueue,
    expected: 'allow',
  },
  // ==== Action and Resource: names and wildcards ====================================================
  {
    name: 'action names are case-insensitive: IAM:listaccesskeys is iam:ListAccessKeys',
    page: ACTION,
    section: 'IAM JSON policy elements: Action',
    principal: david,
    identity: [policy({ Effect: 'Allow', Action: 'IAM:listaccesskeys', Resource: '*' })],
    request: { action: 'iam:ListAccessKeys', resource: `arn:aws:iam::${A}:user/David` },
    expected: 'allow',
  },
  {
    name: 'a wildcard inside an action name: iam:*AccessKey* covers iam:DeleteAccessKey',
    page: ACTION,
    section: 'IAM JSON policy elements: Action',
    principal: david,
    identity: [policy({ Effect: 'Allow', Action: 'iam:*AccessKey*', Resource: '*' })],
    request: { action: 'iam:DeleteAccessKey', resource: `arn:aws:iam::${A}:user/David` },
    expected: 'allow',
  },
  {
    name: 'iam:*AccessKey* does not cover iam:DeleteUser',
    page: ACTION,
    section: 'IAM JSON policy elements: Action',
    principal: david,
    identity: [policy({ Effect: 'Allow', Action: 'iam:*AccessKey*', Resource: '*' })],
    request: { action: 'iam:DeleteUser', resource: `arn:aws:iam::${A}:user/David` },
    expected: 'implicit deny',
  },
  ...['1/2/test/3/object.jpg', '1///test///object.jpg', '1/test/.jpg'].map(
    (key): ProofCase => ({
      name: `* in a resource ARN spans slashes: DOC-EXAMPLE-BUCKET/*/test/* covers ${key}`,
      page: RESOURCE,
      section: 'Using wildcards in resource ARNs',
      principal: david,
      identity: [
        policy({
          Effect: 'Allow',
          Action: 's3:GetObject',
          Resource: 'arn:aws:s3:::DOC-EXAMPLE-BUCKET/*/test/*',
        }),
      ],
      request: { action: 's3:GetObject', resource: `arn:aws:s3:::DOC-EXAMPLE-BUCKET/${key}` },
      expected: 'allow',
    }),
  ),
  {
    name: 'DOC-EXAMPLE-BUCKET/*/test/* does not cover an object outside any test/ folder',
    page: RESOURCE,
    section: 'Using wildcards in resource ARNs',
    principal: david,
    identity: [
      policy({
        Effect: 'Allow',
        Action: 's3:GetObject',
        Resource: 'arn:aws:s3:::DOC-EXAMPLE-BUCKET/*/test/*',
      }),
    ],
    request: { action: 's3:GetObject', resource: 'arn:aws:s3:::DOC-EXAMPLE-BUCKET/1/prod/object.jpg' },
    expected: 'implicit deny',
  },
  {
    name: '? in a resource ARN is one character: queue? covers queue1',
    page: RESOURCE,
    section: 'Using wildcards in resource ARNs',
    principal: david,
    identity: [
      policy({ Effect: 'Allow', Action: 'sqs:SendMessage', Resource: 'arn:aws:sqs:us-east-2:*:queue?' }),
    ],
    request: { action: 'sqs:SendMessage', resource: `arn:aws:sqs:us-east-2:${A}:queue1` },
    expected: 'allow',
  },
  {
    name: '? in a resource ARN is one character: queue? does not cover queue12',
    page: RESOURCE,
    section: 'Using wildcards in resource ARNs',
    principal: david,
    identity: [
      policy({ Effect: 'Allow', Action: 'sqs:SendMessage', Resource: 'arn:aws:sqs:us-east-2:*:queue?' }),
    ],
    request: { action: 'sqs:SendMessage', resource: `arn:aws:sqs:us-east-2:${A}:queue12` },
    expected: 'implicit deny',
  },
  {
    name: '* in a resource ARN stays within its segment: an account wildcard does not reach the region',
    page: RESOURCE,
    section: 'Using wildcards in resource ARNs',
    principal: david,
    identity: [
      policy({ Effect: 'Allow', Action: 'sqs:SendMessage', Resource: 'arn:aws:sqs:us-east-2:*:queue1' }),
    ],
    request: { action: 'sqs:SendMessage', resource: `arn:aws:sqs:us-west-2:${A}:queue1` },
    expected: 'implicit deny',
  },
  // ==== NotAction ====================================================================================
  {
    name: 'Allow NotAction s3:DeleteBucket on arn:aws:s3:::* allows s3:GetObject',
    page: NOT_ACTION,
    section: 'NotAction with Allow',
    principal: david,
    identity: [ALL_S3_BUT_DELETE_BUCKET],
    request: { action: 's3:GetObject', resource: 'arn:aws:s3:::examplebucket/photo.jpg' },
    expected: 'allow',
  },
  {
    name: 'Allow NotAction s3:DeleteBucket does not allow s3:DeleteBucket',
    page: NOT_ACTION,
    section: 'NotAction with Allow',
    principal: david,
    identity: [ALL_S3_BUT_DELETE_BUCKET],
    request: { action: 's3:DeleteBucket', resource: 'arn:aws:s3:::examplebucket' },
    expected: 'implicit deny',
  },
  {
    name: 'Allow NotAction on arn:aws:s3:::* does not allow s3:ListAllMyBuckets, which needs the * resource',
    page: NOT_ACTION,
    section: 'NotAction with Allow',
    principal: david,
    identity: [ALL_S3_BUT_DELETE_BUCKET],
    request: { action: 's3:ListAllMyBuckets', resource: '*' },
    expected: 'implicit deny',
  },
  {
    name: 'Allow NotAction on S3 resources does not allow actions of other services',
    page: NOT_ACTION,
    section: 'NotAction with Allow',
    principal: david,
    identity: [ALL_S3_BUT_DELETE_BUCKET],
    request: { action: 'dynamodb:GetItem', resource: `arn:aws:dynamodb:${REGION}:${A}:table/GameScores` },
    expected: 'implicit deny',
  },
  {
    name: 'Allow NotAction iam:* allows every other service',
    page: NOT_ACTION,
    section: 'NotAction with Allow',
    principal: david,
    identity: [ALL_BUT_IAM],
    request: { action: 'dynamodb:GetItem', resource: `arn:aws:dynamodb:${REGION}:${A}:table/GameScores` },
    expected: 'allow',
  },
  {
    name: 'Allow NotAction iam:* does not allow IAM',
    page: NOT_ACTION,
    section: 'NotAction with Allow',
    principal: david,
    identity: [ALL_BUT_IAM],
    request: { action: 'iam:CreateUser', resource: `arn:aws:iam::${A}:user/Mallory` },
    expected: 'implicit deny',
  },
  // ==== NotResource ==================================================================================
  {
    name: 'Deny NotResource Payroll: the Payroll folder is not denied',
    page: NOT_RESOURCE,
    section: 'IAM JSON policy elements: NotResource (the HRPayroll example)',
    note: 'An Allow * statement is added: the page says the Deny "does not grant the user access to any resources".',
    principal: userPrincipal(A, 'payroll-clerk'),
    identity: [policy(HR_PAYROLL_DENY, ALLOW_EVERYTHING)],
    request: { action: 's3:GetObject', resource: 'arn:aws:s3:::HRBucket/Payroll/2026-01.csv' },
    expected: 'allow',
  },
  {
    name: 'Deny NotResource Payroll: every other S3 resource is denied',
    page: NOT_RESOURCE,
    section: 'IAM JSON policy elements: NotResource (the HRPayroll example)',
    note: 'An Allow * statement is added, as above.',
    principal: userPrincipal(A, 'payroll-clerk'),
    identity: [policy(HR_PAYROLL_DENY, ALLOW_EVERYTHING)],
    request: { action: 's3:GetObject', resource: 'arn:aws:s3:::HRBucket/Engineering/plan.txt' },
    expected: 'explicit deny',
  },
  {
    name: 'Deny s3:* NotResource does not deny the actions of other services',
    page: NOT_RESOURCE,
    section: 'IAM JSON policy elements: NotResource (the HRPayroll example)',
    note: 'An Allow * statement is added, as above.',
    principal: userPrincipal(A, 'payroll-clerk'),
    identity: [policy(HR_PAYROLL_DENY, ALLOW_EVERYTHING)],
    request: { action: 'ec2:DescribeInstances', resource: '*' },
    expected: 'allow',
  },
  {
    name: 'Deny NotResource alone grants nothing',
    page: NOT_RESOURCE,
    section: 'IAM JSON policy elements: NotResource (the HRPayroll example)',
    principal: userPrincipal(A, 'payroll-clerk'),
    identity: [policy(HR_PAYROLL_DENY)],
    request: { action: 's3:GetObject', resource: 'arn:aws:s3:::HRBucket/Payroll/2026-01.csv' },
    expected: 'implicit deny',
  },
  // ==== NotPrincipal ==================================================================================
  {
    name: 'Deny NotPrincipal [Bob, his account]: Bob is not denied, and his own policy allows',
    page: NOT_PRINCIPAL,
    section: 'IAM user in the same or a different account',
    principal: userPrincipal(C, 'Bob'),
    identity: [S3_ALL],
    resourcePolicy: NOT_BOB,
    request: { action: 's3:GetObject', resource: 'arn:aws:s3:::BUCKETNAME/report.txt' },
    expected: 'allow',
  },
  {
    name: 'Deny NotPrincipal [Bob, his account]: another user of the account is denied',
    page: NOT_PRINCIPAL,
    section: 'IAM user in the same or a different account',
    principal: userPrincipal(C, 'Alice'),
    identity: [S3_ALL],
    resourcePolicy: NOT_BOB,
    request: { action: 's3:GetObject', resource: 'arn:aws:s3:::BUCKETNAME/report.txt' },
    expected: 'explicit deny',
  },
  {
    name: 'Deny NotPrincipal does not grant Bob access by itself',
    page: NOT_PRINCIPAL,
    section: 'IAM user in the same or a different account',
    principal: userPrincipal(C, 'Bob'),
    resourcePolicy: NOT_BOB,
    request: { action: 's3:GetObject', resource: 'arn:aws:s3:::BUCKETNAME/report.txt' },
    expected: 'implicit deny',
  },
  {
    name: "Deny NotPrincipal naming Bob but not his account: Bob's account, and so Bob, is denied",
    page: NOT_PRINCIPAL,
    section: 'IAM user in the same or a different account',
    note: 'The page says such a policy "might" deny the account; the local evaluator takes the strict reading.',
    principal: userPrincipal(C, 'Bob'),
    identity: [S3_ALL],
    resourcePolicy: policy({
      Effect: 'Deny',
      NotPrincipal: { AWS: `arn:aws:iam::${C}:user/Bob` },
      Action: 's3:*',
      Resource: ['arn:aws:s3:::BUCKETNAME', 'arn:aws:s3:::BUCKETNAME/*'],
    }),
    request: { action: 's3:GetObject', resource: 'arn:aws:s3:::BUCKETNAME/report.txt' },
    expected: 'explicit deny',
  },
  {
    name: 'Deny NotPrincipal [session, role, account]: the named session is not denied',
    page: NOT_PRINCIPAL,
    section: 'IAM role in the same or different account',
    note: 'The resource is taken in the same account: the local evaluator is same-account.',
    principal: roleSessionPrincipal(auditRole, 'cross-account-audit-app'),
    identity: [S3_ALL],
    resourcePolicy: NOT_AUDIT_APP,
    request: { action: 's3:GetObject', resource: 'arn:aws:s3:::Bucket_AccountAudit/2026.log' },
    expected: 'allow',
  },
  {
    name: 'Deny NotPrincipal [session, role, account]: another session of the same role is denied',
    page: NOT_PRINCIPAL,
    section: 'IAM role in the same or different account',
    note: 'The resource is taken in the same account, as above.',
    principal: roleSessionPrincipal(auditRole, 'some-other-app'),
    identity: [S3_ALL],
    resourcePolicy: NOT_AUDIT_APP,
    request: { action: 's3:GetObject', resource: 'arn:aws:s3:::Bucket_AccountAudit/2026.log' },
    expected: 'explicit deny',
  },
  // ==== Condition operators ==========================================================================
  {
    name: 'condition key names are not case-sensitive: AWS:CurrentTime is aws:CurrentTime',
    page: CONDITION,
    section: 'IAM JSON policy elements: Condition',
    principal: david,
    identity: [
      allowWhen('s3:ListBucket', { DateGreaterThan: { 'AWS:CURRENTTIME': '2020-01-01T00:00:00Z' } }),
    ],
    request: listObjects,
    expected: 'allow',
  },
  {
    name: "condition key values' case depends on the operator: StringEquals johndoe does not match JohnDoe",
    page: CONDITION,
    section: 'IAM JSON policy elements: Condition',
    principal: userPrincipal(A, 'JohnDoe'),
    identity: [allowWhen('s3:ListBucket', { StringEquals: { 'aws:username': 'johndoe' } })],
    request: listObjects,
    expected: 'implicit deny',
  },
  {
    name: 'StringEqualsIgnoreCase johndoe matches JohnDoe',
    page: CONDITION,
    section: 'IAM JSON policy elements: Condition',
    principal: userPrincipal(A, 'JohnDoe'),
    identity: [allowWhen('s3:ListBucket', { StringEqualsIgnoreCase: { 'aws:username': 'johndoe' } })],
    request: listObjects,
    expected: 'allow',
  },
  {
    name: 'StringEquals is case-sensitive',
    page: OPERATORS,
    section: 'String condition operators',
    note: 'Adapted: aws:username for aws:PrincipalTag/job-category (tags are not modelled).',
    principal: david,
    identity: [allowWhen('s3:ListBucket', { StringEquals: { 'aws:username': 'david' } })],
    request: listObjects,
    expected: 'implicit deny',
  },
  {
    name: 'StringEqualsIgnoreCase ignores case',
    page: OPERATORS,
    section: 'String condition operators',
    note: 'Adapted as above.',
    principal: david,
    identity: [allowWhen('s3:ListBucket', { StringEqualsIgnoreCase: { 'aws:username': 'david' } })],
    request: listObjects,
    expected: 'allow',
  },
  {
    name: 'StringLike ? matches exactly one character',
    page: OPERATORS,
    section: 'String condition operators',
    note: 'Adapted as above.',
    principal: david,
    identity: [allowWhen('s3:ListBucket', { StringLike: { 'aws:username': 'Dav?d' } })],
    request: listObjects,
    expected: 'allow',
  },
  {
    name: 'StringLike ? does not match two characters',
    page: OPERATORS,
    section: 'String condition operators',
    note: 'Adapted as above.',
    principal: david,
    identity: [allowWhen('s3:ListBucket', { StringLike: { 'aws:username': 'Da?d' } })],
    request: listObjects,
    expected: 'implicit deny',
  },
  {
    name: 'a positive operator on a key the request does not have is false (aws:username of a role)',
    page: OPERATORS,
    section: 'String condition operators',
    principal: gameSession,
    identity: [allowWhen('s3:ListBucket', { StringLike: { 'aws:username': '*' } })],
    request: listObjects,
    expected: 'implicit deny',
  },
  {
    name: 'a negated operator on a key the request does not have is true',
    page: OPERATORS,
    section: 'IAM JSON policy elements: Condition operators (Important)',
    principal: gameSession,
    identity: [allowWhen('s3:ListBucket', { StringNotLike: { 'aws:username': 'admin*' } })],
    request: listObjects,
    expected: 'allow',
  },
  {
    name: 'NumericLessThanEquals holds on aws:EpochTime before the limit',
    page: OPERATORS,
    section: 'Numeric condition operators',
    note: 'Adapted: aws:EpochTime (which "works with ... numeric operators") for s3:max-keys.',
    principal: david,
    identity: [
      allowWhen('s3:ListBucket', { NumericLessThanEquals: { 'aws:EpochTime': String(NOW / 1000) } }),
    ],
    request: listObjects,
    expected: 'allow',
  },
  {
    name: 'NumericGreaterThan fails on aws:EpochTime at the limit',
    page: OPERATORS,
    section: 'Numeric condition operators',
    note: 'Adapted as above.',
    principal: david,
    identity: [allowWhen('s3:ListBucket', { NumericGreaterThan: { 'aws:EpochTime': String(NOW / 1000) } })],
    request: listObjects,
    expected: 'implicit deny',
  },
  {
    name: 'DateGreaterThan an ISO 8601 date in the past holds',
    page: OPERATORS,
    section: 'Date condition operators',
    note: 'Adapted: aws:CurrentTime for aws:TokenIssueTime (the page names both for date operators).',
    principal: david,
    identity: [
      allowWhen('s3:ListBucket', { DateGreaterThan: { 'aws:CurrentTime': '2020-01-01T00:00:01Z' } }),
    ],
    request: listObjects,
    expected: 'allow',
  },
  {
    name: 'DateLessThan an ISO 8601 date in the past fails',
    page: OPERATORS,
    section: 'Date condition operators',
    note: 'Adapted as above.',
    principal: david,
    identity: [allowWhen('s3:ListBucket', { DateLessThan: { 'aws:CurrentTime': '2020-01-01T00:00:01Z' } })],
    request: listObjects,
    expected: 'implicit deny',
  },
  {
    name: 'a date operator takes epoch (UNIX) time too',
    page: OPERATORS,
    section: 'Date condition operators',
    principal: david,
    identity: [
      allowWhen('s3:ListBucket', { DateLessThan: { 'aws:CurrentTime': String(NOW / 1000 + 3600) } }),
    ],
    request: listObjects,
    expected: 'allow',
  },
  {
    name: 'Bool: the BooleanExample deny does not apply to a request over TLS',
    page: OPERATORS,
    section: 'Boolean condition operators',
    note: 'An Allow s3:* is added (the page: "This policy does not allow any actions").',
    principal: david,
    identity: [
      policy(S3_ALL.Statement[0], {
        Sid: 'BooleanExample',
        Action: 's3:*',
        Effect: 'Deny',
        Resource: ['arn:aws:s3:::DOC-EXAMPLE-BUCKET', 'arn:aws:s3:::DOC-EXAMPLE-BUCKET/*'],
        Condition: { Bool: { 'aws:SecureTransport': 'false' } },
      }),
    ],
    request: { action: 's3:GetObject', resource: 'arn:aws:s3:::DOC-EXAMPLE-BUCKET/a.txt' },
    expected: 'allow',
  },
  {
    name: 'StringLike matches an ARN across its colons',
    page: OPERATORS,
    section: 'Amazon Resource Name (ARN) condition operators',
    note: 'The pattern and value of the page; the caller is SNS delivering on behalf of that source.',
    principal: servicePrincipal('sns.amazonaws.com'),
    resourcePolicy: snsToQueue('StringLike'),
    request: { ...sendToQueue, context: { 'aws:sourcearn': STORE_ARN } },
    expected: 'allow',
  },
  {
    name: 'ArnLike matches component by component: the same value does not match',
    page: OPERATORS,
    section: 'Amazon Resource Name (ARN) condition operators',
    note: 'As above.',
    principal: servicePrincipal('sns.amazonaws.com'),
    resourcePolicy: snsToQueue('ArnLike'),
    request: { ...sendToQueue, context: { 'aws:sourcearn': STORE_ARN } },
    expected: 'implicit deny',
  },
  {
    name: 'ArnLike ? matches one character of an ARN component',
    page: OPERATORS,
    section: 'Amazon Resource Name (ARN) condition operators',
    principal: gameSession,
    identity: [
      allowWhen('s3:ListBucket', { ArnLike: { 'aws:PrincipalArn': 'arn:aws:iam::*:role/GameRol?' } }),
    ],
    request: listObjects,
    expected: 'allow',
  },
  {
    name: 'ArnEquals on aws:SourceArn is false for a user calling directly',
    page: OPERATORS,
    section: 'Amazon Resource Name (ARN) condition operators',
    principal: userPrincipal(A, 'exampleuser'),
    resourcePolicy: policy({
      Effect: 'Allow',
      Principal: { AWS: A },
      Action: 'SQS:SendMessage',
      Resource: `arn:aws:sqs:${REGION}:${A}:QUEUE-ID`,
      Condition: { ArnEquals: { 'aws:SourceArn': `arn:aws:sns:${REGION}:${A}:TOPIC-ID` } },
    }),
    request: { action: 'sqs:SendMessage', resource: `arn:aws:sqs:${REGION}:${A}:QUEUE-ID` },
    expected: 'implicit deny',
  },
  {
    name: '...IfExists holds when the key is missing',
    page: OPERATORS,
    section: '...IfExists condition operators',
    note: 'Adapted: aws:username (absent for a role) for ec2:InstanceType.',
    principal: gameSession,
    identity: [allowWhen('s3:ListBucket', { StringLikeIfExists: { 'aws:username': 'Dav*' } })],
    request: listObjects,
    expected: 'allow',
  },
  {
    name: '...IfExists still tests the key when it is there',
    page: OPERATORS,
    section: '...IfExists condition operators',
    note: 'Adapted as above.',
    principal: adele,
    identity: [allowWhen('s3:ListBucket', { StringLikeIfExists: { 'aws:username': 'Dav*' } })],
    request: listObjects,
    expected: 'implicit deny',
  },
  {
    name: 'Deny with a negated ...IfExists operator still denies when the key is missing',
    page: OPERATORS,
    section: '...IfExists condition operators',
    note: 'Adapted as above.',
    principal: gameSession,
    identity: [
      policy(S3_ALL.Statement[0], {
        Effect: 'Deny',
        Action: 's3:*',
        Resource: '*',
        Condition: { StringNotEqualsIfExists: { 'aws:username': 'David' } },
      }),
    ],
    request: listObjects,
    expected: 'explicit deny',
  },
  {
    name: 'Null true holds when the key is absent',
    page: OPERATORS,
    section: 'Condition operator to check existence of condition keys',
    note: 'Adapted: aws:username (present for IAM users only) for aws:TokenIssueTime.',
    principal: gameSession,
    identity: [allowWhen('s3:ListBucket', { Null: { 'aws:username': 'true' } })],
    request: listObjects,
    expected: 'allow',
  },
  {
    name: 'Null true fails when the key is present',
    page: OPERATORS,
    section: 'Condition operator to check existence of condition keys',
    note: 'Adapted as above.',
    principal: david,
    identity: [allowWhen('s3:ListBucket', { Null: { 'aws:username': 'true' } })],
    request: listObjects,
    expected: 'implicit deny',
  },
  // ==== Several keys or values ======================================================================
  {
    name: "one key's values are OR'ed, operators AND'ed: bob of the account is allowed",
    page: MULTIPLE,
    section: 'Evaluation logic for multiple context keys or values',
    note: 'Adapted: aws:username for aws:PrincipalTag/department (tags are not modelled).',
    principal: userPrincipal(A, 'bob'),
    identity: [BOB_OR_ALICE_OF_A],
    request: listObjects,
    expected: 'allow',
  },
  {
    name: 'none of the values matches: denied',
    page: MULTIPLE,
    section: 'Evaluation logic for multiple context keys or values',
    note: 'Adapted as above.',
    principal: userPrincipal(A, 'carol'),
    identity: [BOB_OR_ALICE_OF_A],
    request: listObjects,
    expected: 'implicit deny',
  },
  {
    name: 'one operator of two fails: denied',
    page: MULTIPLE,
    section: 'Evaluation logic for multiple context keys or values',
    note: 'Adapted as above.',
    principal: userPrincipal(B, 'bob'),
    identity: [BOB_OR_ALICE_OF_A],
    request: listObjects,
    expected: 'implicit deny',
  },
  {
    name: 'two keys under one operator are both required (AND)',
    page: MULTIPLE,
    section: 'Evaluation logic for multiple context keys or values',
    principal: userPrincipal(A, 'bob'),
    identity: [
      allowWhen('s3:ListBucket', {
        StringEquals: { 'aws:username': 'bob', 'aws:PrincipalType': 'AssumedRole' },
      }),
    ],
    request: listObjects,
    expected: 'implicit deny',
  },
  {
    name: 'a negated operator with several values holds when none matches (NOR)',
    page: MULTIPLE,
    section: 'Evaluation logic for negated matching condition operators',
    principal: userPrincipal(A, 'bob'),
    identity: [allowWhen('s3:ListBucket', { StringNotEquals: { 'aws:PrincipalAccount': [B, C] } })],
    request: listObjects,
    expected: 'allow',
  },
  {
    name: 'a negated operator with several values fails when one matches',
    page: MULTIPLE,
    section: 'Evaluation logic for negated matching condition operators',
    principal: userPrincipal(B, 'bob'),
    identity: [allowWhen('s3:ListBucket', { StringNotEquals: { 'aws:PrincipalAccount': [B, C] } })],
    request: listObjects,
    expected: 'implicit deny',
  },
  // ==== Set operators on multivalued keys ===========================================================
  {
    name: 'ForAllValues holds when the key is missing (a Scan has no dynamodb:LeadingKeys)',
    page: SETS,
    section: 'ForAllValues',
    note: 'Example 1 of specifying-conditions.html with Scan added: why that page leaves Scan out.',
    principal: player,
    identity: [
      policy({
        Effect: 'Allow',
        Action: 'dynamodb:Scan',
        Resource: `arn:aws:dynamodb:us-west-2:${A}:table/GameScores`,
        Condition: { 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': ['${aws:username}'] } },
      }),
    ],
    request: ddb('Scan', { TableName: 'GameScores' }),
    expected: 'allow',
  },
  {
    name: 'ForAllValues holds when the key is empty (a Scan names no attribute)',
    page: SETS,
    section: 'ForAllValues',
    principal: player,
    identity: [
      policy({
        Effect: 'Allow',
        Action: 'dynamodb:Scan',
        Resource: `arn:aws:dynamodb:us-west-2:${A}:table/GameScores`,
        Condition: { 'ForAllValues:StringEquals': { 'dynamodb:Attributes': ['UserId'] } },
      }),
    ],
    request: ddb('Scan', { TableName: 'GameScores' }),
    expected: 'allow',
  },
  {
    name: 'a Null false guard makes ForAllValues fail on a missing key',
    page: SETS,
    section: 'ForAllValues',
    principal: player,
    identity: [
      policy({
        Effect: 'Allow',
        Action: 'dynamodb:Scan',
        Resource: `arn:aws:dynamodb:us-west-2:${A}:table/GameScores`,
        Condition: {
          'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': ['${aws:username}'] },
          Null: { 'dynamodb:LeadingKeys': 'false' },
        },
      }),
    ],
    request: ddb('Scan', { TableName: 'GameScores' }),
    expected: 'implicit deny',
  },
  {
    name: 'ForAnyValue fails when the key is empty',
    page: SETS,
    section: 'ForAnyValue',
    principal: player,
    identity: [
      policy({
        Effect: 'Allow',
        Action: 'dynamodb:Scan',
        Resource: `arn:aws:dynamodb:us-west-2:${A}:table/GameScores`,
        Condition: { 'ForAnyValue:StringLike': { 'dynamodb:Attributes': ['*'] } },
      }),
    ],
    request: ddb('Scan', { TableName: 'GameScores' }),
    expected: 'implicit deny',
  },
  {
    name: 'ForAnyValue fails when the key is missing',
    page: SETS,
    section: 'ForAnyValue',
    principal: player,
    identity: [
      policy({
        Effect: 'Allow',
        Action: 'dynamodb:Scan',
        Resource: `arn:aws:dynamodb:us-west-2:${A}:table/GameScores`,
        Condition: { 'ForAnyValue:StringLike': { 'dynamodb:LeadingKeys': ['*'] } },
      }),
    ],
    request: ddb('Scan', { TableName: 'GameScores' }),
    expected: 'implicit deny',
  },
  {
    name: 'ForAllValues:StringLike with a wildcard: every attribute matches one pattern',
    page: SETS,
    section: 'ForAllValues',
    principal: player,
    identity: [
      policy({
        Effect: 'Allow',
        Action: 'dynamodb:Scan',
        Resource: `arn:aws:dynamodb:us-west-2:${A}:table/GameScores`,
        Condition: { 'ForAllValues:StringLike': { 'dynamodb:Attributes': ['TopScore*'] } },
      }),
    ],
    request: ddb('Scan', { TableName: 'GameScores', ProjectionExpression: 'TopScore, TopScoreDateTime' }),
    expected: 'allow',
  },
  {
    name: 'ForAllValues: GetItem of Message and Tags by ID is allowed',
    page: MULTI_VALUE,
    section: 'Examples of using multiple values with condition set operators',
    principal: player,
    identity: [
      policy({
        Effect: 'Allow',
        Action: 'dynamodb:GetItem',
        Resource: 'arn:aws:dynamodb:*:*:table/Thread',
        Condition: { 'ForAllValues:StringEquals': { 'dynamodb:Attributes': ['ID', 'Message', 'Tags'] } },
      }),
    ],
    request: ddb('GetItem', {
      TableName: 'Thread',
      Key: { ID: N('101') },
      ProjectionExpression: 'Message, Tags',
    }),
    expected: 'allow',
  },
  {
    name: 'ForAllValues: asking for UserName too is denied',
    page: MULTI_VALUE,
    section: 'Examples of using multiple values with condition set operators',
    principal: player,
    identity: [
      policy({
        Effect: 'Allow',
        Action: 'dynamodb:GetItem',
        Resource: 'arn:aws:dynamodb:*:*:table/Thread',
        Condition: { 'ForAllValues:StringEquals': { 'dynamodb:Attributes': ['ID', 'Message', 'Tags'] } },
      }),
    ],
    request: ddb('GetItem', {
      TableName: 'Thread',
      Key: { ID: N('101') },
      ProjectionExpression: 'Message, Tags, UserName',
    }),
    expected: 'implicit deny',
  },
  {
    name: 'ForAnyValue Deny: a PutItem writing PostDateTime is denied',
    page: MULTI_VALUE,
    section: 'Examples of using multiple values with condition set operators',
    note: 'An Allow dynamodb:PutItem is added (the Deny alone grants nothing).',
    principal: player,
    identity: [
      policy(
        { Effect: 'Allow', Action: 'dynamodb:PutItem', Resource: 'arn:aws:dynamodb:*:*:table/Thread' },
        {
          Effect: 'Deny',
          Action: 'dynamodb:PutItem',
          Resource: 'arn:aws:dynamodb:*:*:table/Thread',
          Condition: { 'ForAnyValue:StringEquals': { 'dynamodb:Attributes': ['ID', 'PostDateTime'] } },
        },
      ),
    ],
    request: ddb('PutItem', {
      TableName: 'Thread',
      Item: { ID: N('101'), PostDateTime: S('20130930T231548Z'), Message: S('A good resource') },
    }),
    expected: 'explicit deny',
  },
  // ==== Policy variables ==============================================================================
  {
    name: '${aws:username} in Resource: alice may use alice-queue',
    page: VARIABLES,
    section: 'Resource element',
    principal: alice,
    identity: [policy(OWN_QUEUES)],
    request: queueOf('alice'),
    expected: 'allow',
  },
  {
    name: "${aws:username} in Resource: alice may not use bob's queue",
    page: VARIABLES,
    section: 'Resource element',
    principal: alice,
    identity: [policy(OWN_QUEUES)],
    request: queueOf('bob'),
    expected: 'implicit deny',
  },
  {
    name: 'a variable the request does not have matches nothing (aws:username of a role session)',
    page: VARIABLES,
    section: 'Principal key values',
    principal: roleSessionPrincipal(`arn:aws:iam::${A}:role/alice`, 'alice'),
    identity: [policy(OWN_QUEUES)],
    request: queueOf('alice'),
    expected: 'implicit deny',
  },
  {
    name: 'variable names are case-insensitive: ${AWS:UserName} is ${aws:username}',
    page: VARIABLES,
    section: 'Information available in all requests',
    principal: alice,
    identity: [policy({ ...OWN_QUEUES, Resource: 'arn:aws:sqs:us-east-2:*:${AWS:UserName}-queue' })],
    request: queueOf('alice'),
    expected: 'allow',
  },
  {
    name: 'without Version 2012-10-17 a variable is a literal string',
    page: VARIABLES,
    section: 'Introduction',
    principal: alice,
    identity: [{ Statement: [OWN_QUEUES] }],
    request: queueOf('alice'),
    expected: 'implicit deny',
  },
  {
    name: 'iam:*AccessKey* on user/${aws:username}: David manages his own access keys',
    page: VARIABLES,
    section: 'Introduction',
    principal: david,
    identity: [
      policy({
        Action: ['iam:*AccessKey*'],
        Effect: 'Allow',
        Resource: [`arn:aws:iam::${A}:user/\${aws:username}`],
      }),
    ],
    request: { action: 'iam:CreateAccessKey', resource: `arn:aws:iam::${A}:user/David` },
    expected: 'allow',
  },
  {
    name: "iam:*AccessKey* on user/${aws:username}: not Adele's",
    page: VARIABLES,
    section: 'Introduction',
    principal: david,
    identity: [
      policy({
        Action: ['iam:*AccessKey*'],
        Effect: 'Allow',
        Resource: [`arn:aws:iam::${A}:user/\${aws:username}`],
      }),
    ],
    request: { action: 'iam:UpdateAccessKey', resource: `arn:aws:iam::${A}:user/Adele` },
    expected: 'implicit deny',
  },
  {
    name: '${*} is a literal asterisk: the object named * matches',
    page: VARIABLES,
    section: 'Special characters',
    principal: david,
    identity: [policy({ Effect: 'Allow', Action: 's3:GetObject', Resource: 'arn:aws:s3:::mybucket/${*}' })],
    request: { action: 's3:GetObject', resource: 'arn:aws:s3:::mybucket/*' },
    expected: 'allow',
  },
  {
    name: '${*} is not a wildcard: another object does not match',
    page: VARIABLES,
    section: 'Special characters',
    principal: david,
    identity: [policy({ Effect: 'Allow', Action: 's3:GetObject', Resource: 'arn:aws:s3:::mybucket/${*}' })],
    request: { action: 's3:GetObject', resource: 'arn:aws:s3:::mybucket/photo.jpg' },
    expected: 'implicit deny',
  },
  {
    name: '${?} is a literal question mark, not a one-character wildcard',
    page: VARIABLES,
    section: 'Special characters',
    principal: david,
    identity: [
      policy({ Effect: 'Allow', Action: 's3:GetObject', Resource: 'arn:aws:s3:::mybucket/why${?}' }),
    ],
    request: { action: 's3:GetObject', resource: 'arn:aws:s3:::mybucket/whyX' },
    expected: 'implicit deny',
  },
  {
    name: '${*} compared by StringEquals is the asterisk itself: a partition key "*" matches',
    page: VARIABLES,
    section: 'Special characters',
    principal: gameSession,
    identity: [STAR_PARTITION('ForAllValues:StringEquals', '${*}')],
    request: ddb('GetItem', { TableName: 'GameScores', Key: gameKey('*'), ProjectionExpression: 'Wins' }),
    expected: 'allow',
  },
  {
    name: '${*} followed by a wildcard in StringLike: only keys starting with "*" match',
    page: VARIABLES,
    section: 'Special characters',
    principal: gameSession,
    identity: [STAR_PARTITION('ForAllValues:StringLike', '${*}*')],
    request: ddb('GetItem', {
      TableName: 'GameScores',
      Key: gameKey('player-42'),
      ProjectionExpression: 'Wins',
    }),
    expected: 'implicit deny',
  },
  {
    name: '${*} followed by a wildcard in StringLike: a key starting with "*" matches',
    page: VARIABLES,
    section: 'Special characters',
    principal: gameSession,
    identity: [STAR_PARTITION('ForAllValues:StringLike', '${*}*')],
    request: ddb('GetItem', {
      TableName: 'GameScores',
      Key: gameKey('*-shared'),
      ProjectionExpression: 'Wins',
    }),
    expected: 'allow',
  },
  {
    name: 'a default value stands in for a variable the request does not have',
    page: VARIABLES,
    section: 'Specifying default values',
    principal: gameSession,
    identity: [
      policy({
        Effect: 'Allow',
        Action: 's3:GetObject',
        Resource: "arn:aws:s3:::mybucket/${aws:username, 'shared'}/*",
      }),
    ],
    request: { action: 's3:GetObject', resource: 'arn:aws:s3:::mybucket/shared/rules.txt' },
    expected: 'allow',
  },
  // ==== Global condition keys =========================================================================
  {
    name: 'aws:ViaAWSService is false when the principal calls directly',
    page: KEYS,
    section: 'aws:ViaAWSService',
    principal: david,
    identity: [allowWhen('s3:ListBucket', { Bool: { 'aws:ViaAWSService': 'false' } })],
    request: listObjects,
    expected: 'allow',
  },
  {
    name: "aws:PrincipalArn of a role session is the role's ARN",
    page: KEYS,
    section: 'aws:PrincipalArn',
    principal: gameSession,
    identity: [
      allowWhen('s3:ListBucket', { ArnEquals: { 'aws:PrincipalArn': `arn:aws:iam::${A}:role/GameRole` } }),
    ],
    request: listObjects,
    expected: 'allow',
  },
  // ==== DynamoDB fine-grained access control =========================================================
  {
    name: 'GetItem of own item, naming listed attributes: allowed',
    page: FINE_GRAINED,
    section: 'Permissions use case (GameRole policy)',
    note: GAME_OVERVIEW_NOTE,
    principal: player,
    identity: [GAME_SCORES_OVERVIEW],
    request: ddb('GetItem', {
      TableName: 'GameScores',
      Key: gameKey('player-42'),
      ProjectionExpression: 'Wins, Losses',
    }),
    expected: 'allow',
  },
  {
    name: "GetItem of another user's item: dynamodb:LeadingKeys denies",
    page: FINE_GRAINED,
    section: 'Permissions use case (GameRole policy)',
    note: GAME_OVERVIEW_NOTE,
    principal: player,
    identity: [GAME_SCORES_OVERVIEW],
    request: ddb('GetItem', {
      TableName: 'GameScores',
      Key: gameKey('player-7'),
      ProjectionExpression: 'Wins, Losses',
    }),
    expected: 'implicit deny',
  },
  {
    name: 'GetItem without a projection asks for ALL_ATTRIBUTES: dynamodb:Select denies',
    page: FINE_GRAINED,
    section: 'Permissions use case (GameRole policy)',
    note: GAME_OVERVIEW_NOTE,
    principal: player,
    identity: [GAME_SCORES_OVERVIEW],
    request: ddb('GetItem', { TableName: 'GameScores', Key: gameKey('player-42') }),
    expected: 'implicit deny',
  },
  {
    name: 'GetItem projecting an attribute not listed: dynamodb:Attributes denies',
    page: FINE_GRAINED,
    section: 'Permissions use case (GameRole policy)',
    note: GAME_OVERVIEW_NOTE,
    principal: player,
    identity: [GAME_SCORES_OVERVIEW],
    request: ddb('GetItem', {
      TableName: 'GameScores',
      Key: gameKey('player-42'),
      ProjectionExpression: 'Wins, #a',
      ExpressionAttributeNames: { '#a': 'Attempts' },
    }),
    expected: 'implicit deny',
  },
  {
    name: 'Query of own partition with listed attributes: allowed',
    page: FINE_GRAINED,
    section: 'Permissions use case (GameRole policy)',
    note: GAME_OVERVIEW_NOTE,
    principal: player,
    identity: [GAME_SCORES_OVERVIEW],
    request: ddb('Query', {
      TableName: 'GameScores',
      KeyConditionExpression: 'UserId = :me',
      ExpressionAttributeValues: { ':me': S('player-42') },
      ProjectionExpression: 'GameTitle, TopScore',
    }),
    expected: 'allow',
  },
  {
    name: 'Query with Select ALL_ATTRIBUTES: denied',
    page: FINE_GRAINED,
    section: 'Permissions use case (GameRole policy)',
    note: GAME_OVERVIEW_NOTE,
    principal: player,
    identity: [GAME_SCORES_OVERVIEW],
    request: ddb('Query', {
      TableName: 'GameScores',
      KeyConditionExpression: 'UserId = :me',
      ExpressionAttributeValues: { ':me': S('player-42') },
      Select: 'ALL_ATTRIBUTES',
    }),
    expected: 'implicit deny',
  },
  {
    name: 'UpdateItem of a listed attribute of own item: allowed',
    page: FINE_GRAINED,
    section: 'Permissions use case (GameRole policy)',
    note: GAME_OVERVIEW_NOTE,
    principal: player,
    identity: [GAME_SCORES_OVERVIEW],
    request: ddb('UpdateItem', {
      TableName: 'GameScores',
      Key: gameKey('player-42'),
      UpdateExpression: 'SET Wins = Wins + :one',
      ExpressionAttributeValues: { ':one': N('1') },
    }),
    expected: 'allow',
  },
  {
    name: 'UpdateItem with a condition on an attribute not listed: denied',
    page: FINE_GRAINED,
    section: 'Permissions use case (GameRole policy)',
    note: `${GAME_OVERVIEW_NOTE} Example 5: "it cannot perform conditional write operations based on any other attributes".`,
    principal: player,
    identity: [GAME_SCORES_OVERVIEW],
    request: ddb('UpdateItem', {
      TableName: 'GameScores',
      Key: gameKey('player-42'),
      UpdateExpression: 'SET Wins = Wins + :one',
      ConditionExpression: 'Attempts < :max',
      ExpressionAttributeValues: { ':one': N('1'), ':max': N('10') },
    }),
    expected: 'implicit deny',
  },
  {
    name: 'PutItem replacing own item with listed attributes only: allowed',
    page: FINE_GRAINED,
    section: 'Permissions use case (GameRole policy)',
    note: GAME_OVERVIEW_NOTE,
    principal: player,
    identity: [GAME_SCORES_OVERVIEW],
    request: ddb('PutItem', {
      TableName: 'GameScores',
      Item: { ...gameKey('player-42'), TopScore: N('5842'), Wins: N('3') },
    }),
    expected: 'allow',
  },
  {
    name: 'PutItem whose item has an attribute not listed: denied',
    page: FINE_GRAINED,
    section: 'Permissions use case (GameRole policy)',
    note: GAME_OVERVIEW_NOTE,
    principal: player,
    identity: [GAME_SCORES_OVERVIEW],
    request: ddb('PutItem', {
      TableName: 'GameScores',
      Item: { ...gameKey('player-42'), TopScore: N('5842'), Attempts: N('9') },
    }),
    expected: 'implicit deny',
  },
  {
    name: "BatchGetItem with one key of another user's partition: denied",
    page: FINE_GRAINED,
    section: 'Permissions use case (GameRole policy)',
    note: GAME_OVERVIEW_NOTE,
    principal: player,
    identity: [GAME_SCORES_OVERVIEW],
    request: ddb('BatchGetItem', {
      RequestItems: {
        GameScores: { Keys: [gameKey('player-42'), gameKey('player-7')], ProjectionExpression: 'TopScore' },
      },
    }),
    expected: 'implicit deny',
  },
  {
    name: 'Example 1: DeleteItem of own item: allowed',
    page: FINE_GRAINED,
    section: '1: Grant permissions that limit access to items with a specific partition key value',
    note: 'Adapted: ${aws:username} for ${www.amazon.com:user_id}.',
    principal: player,
    identity: [FULL_ACCESS_TO_USER_ITEMS],
    request: ddb('DeleteItem', { TableName: 'GameScores', Key: gameKey('player-42') }),
    expected: 'allow',
  },
  {
    name: 'Example 1: Scan is not among the actions ("Scan returns all items regardless of the leading keys")',
    page: FINE_GRAINED,
    section: '1: Grant permissions that limit access to items with a specific partition key value',
    note: 'Adapted as above.',
    principal: player,
    identity: [FULL_ACCESS_TO_USER_ITEMS],
    request: ddb('Scan', { TableName: 'GameScores' }),
    expected: 'implicit deny',
  },
  {
    name: 'Example 2: Query naming UserId and TopScore only: allowed',
    page: FINE_GRAINED,
    section: '2: Grant permissions that limit access to specific attributes in a table',
    principal: gameSession,
    identity: [LIMIT_TO_SPECIFIC_ATTRIBUTES],
    request: ddb('Query', {
      TableName: 'GameScores',
      KeyConditionExpression: 'UserId = :u',
      ExpressionAttributeValues: { ':u': S('player-42') },
      ProjectionExpression: 'TopScore',
    }),
    expected: 'allow',
  },
  {
    name: 'Example 2: UpdateItem must name GameTitle, a key attribute the policy does not list: denied',
    page: FINE_GRAINED,
    section: '2: Grant permissions that limit access to specific attributes in a table',
    note: 'The "Important" note: the policy must list all primary key attributes, or DynamoDB cannot use them.',
    principal: gameSession,
    identity: [LIMIT_TO_SPECIFIC_ATTRIBUTES],
    request: ddb('UpdateItem', {
      TableName: 'GameScores',
      Key: gameKey('player-42'),
      UpdateExpression: 'SET TopScore = :s',
      ExpressionAttributeValues: { ':s': N('6000') },
    }),
    expected: 'implicit deny',
  },
  {
    name: 'Example 2: PutItem is not permitted (it replaces the whole item)',
    page: FINE_GRAINED,
    section: '2: Grant permissions that limit access to specific attributes in a table',
    principal: gameSession,
    identity: [LIMIT_TO_SPECIFIC_ATTRIBUTES],
    request: ddb('PutItem', { TableName: 'GameScores', Item: { UserId: S('player-42'), TopScore: N('1') } }),
    expected: 'implicit deny',
  },
  {
    name: 'Example 2: a Scan filter evaluating an attribute not listed: denied',
    page: FINE_GRAINED,
    section: '2: Grant permissions that limit access to specific attributes in a table',
    principal: gameSession,
    identity: [LIMIT_TO_SPECIFIC_ATTRIBUTES],
    request: ddb('Scan', {
      TableName: 'GameScores',
      ProjectionExpression: 'UserId, TopScore',
      FilterExpression: 'Wins > :w',
      ExpressionAttributeValues: { ':w': N('10') },
    }),
    expected: 'implicit deny',
  },
  {
    name: 'Example 2: a Scan projecting listed attributes: allowed',
    page: FINE_GRAINED,
    section: '2: Grant permissions that limit access to specific attributes in a table',
    principal: gameSession,
    identity: [LIMIT_TO_SPECIFIC_ATTRIBUTES],
    request: ddb('Scan', { TableName: 'GameScores', ProjectionExpression: 'UserId, TopScore' }),
    expected: 'allow',
  },
  {
    name: 'Example 3: UpdateItem of Wins: allowed',
    page: FINE_GRAINED,
    section: '3: Grant permissions to prevent updates on certain attributes',
    principal: gameSession,
    identity: [PREVENT_UPDATES_ON_CERTAIN_ATTRIBUTES],
    request: ddb('UpdateItem', {
      TableName: 'GameScores',
      Key: gameKey('player-42'),
      UpdateExpression: 'SET Wins = :w',
      ExpressionAttributeValues: { ':w': N('4') },
    }),
    expected: 'allow',
  },
  {
    name: 'Example 3: UpdateItem of BossLevelUnlocked: denied',
    page: FINE_GRAINED,
    section: '3: Grant permissions to prevent updates on certain attributes',
    principal: gameSession,
    identity: [PREVENT_UPDATES_ON_CERTAIN_ATTRIBUTES],
    request: ddb('UpdateItem', {
      TableName: 'GameScores',
      Key: gameKey('player-42'),
      UpdateExpression: 'SET BossLevelUnlocked = :t',
      ExpressionAttributeValues: { ':t': { BOOL: true } },
    }),
    expected: 'implicit deny',
  },
  {
    name: 'Example 3: UpdateItem returning ALL_NEW: denied',
    page: FINE_GRAINED,
    section: '3: Grant permissions to prevent updates on certain attributes',
    principal: gameSession,
    identity: [PREVENT_UPDATES_ON_CERTAIN_ATTRIBUTES],
    request: ddb('UpdateItem', {
      TableName: 'GameScores',
      Key: gameKey('player-42'),
      UpdateExpression: 'SET Wins = :w',
      ExpressionAttributeValues: { ':w': N('4') },
      ReturnValues: 'ALL_NEW',
    }),
    expected: 'implicit deny',
  },
  {
    name: 'Example 3: UpdateItem returning UPDATED_NEW: allowed',
    page: FINE_GRAINED,
    section: '3: Grant permissions to prevent updates on certain attributes',
    principal: gameSession,
    identity: [PREVENT_UPDATES_ON_CERTAIN_ATTRIBUTES],
    request: ddb('UpdateItem', {
      TableName: 'GameScores',
      Key: gameKey('player-42'),
      UpdateExpression: 'SET Wins = :w',
      ExpressionAttributeValues: { ':w': N('4') },
      ReturnValues: 'UPDATED_NEW',
    }),
    expected: 'allow',
  },
  {
    name: 'Example 3: UpdateItem conditioned on FreeGamesAvailable: denied',
    page: FINE_GRAINED,
    section: '3: Grant permissions to prevent updates on certain attributes',
    principal: gameSession,
    identity: [PREVENT_UPDATES_ON_CERTAIN_ATTRIBUTES],
    request: ddb('UpdateItem', {
      TableName: 'GameScores',
      Key: gameKey('player-42'),
      UpdateExpression: 'SET Wins = :w',
      ConditionExpression: 'attribute_not_exists(FreeGamesAvailable)',
      ExpressionAttributeValues: { ':w': N('4') },
    }),
    expected: 'implicit deny',
  },
  {
    name: 'Example 4: Query on the index asking for projected attributes: allowed',
    page: FINE_GRAINED,
    section: '4: Grant permissions to query only projected attributes in an index',
    principal: gameSession,
    identity: [QUERY_ONLY_PROJECTED],
    request: queryIndex({ ProjectionExpression: 'TopScoreDateTime, Wins', Select: 'SPECIFIC_ATTRIBUTES' }),
    expected: 'allow',
  },
  {
    name: 'Example 4: Query on the index without a projection (ALL_PROJECTED_ATTRIBUTES): denied by the first policy',
    page: FINE_GRAINED,
    section: '4: Grant permissions to query only projected attributes in an index',
    principal: gameSession,
    identity: [QUERY_ONLY_PROJECTED],
    request: queryIndex({}),
    expected: 'implicit deny',
  },
  {
    name: 'Example 4: the same Query: allowed by the second policy (QueryAllIndexAttributes)',
    page: FINE_GRAINED,
    section: '4: Grant permissions to query only projected attributes in an index',
    principal: gameSession,
    identity: [QUERY_ALL_INDEX_ATTRIBUTES],
    request: queryIndex({}),
    expected: 'allow',
  },
  {
    name: 'Example 4: a Query on the table, not the index: denied',
    page: FINE_GRAINED,
    section: '4: Grant permissions to query only projected attributes in an index',
    principal: gameSession,
    identity: [QUERY_ALL_INDEX_ATTRIBUTES],
    request: ddb('Query', {
      TableName: 'GameScores',
      KeyConditionExpression: 'UserId = :u',
      ExpressionAttributeValues: { ':u': S('player-42') },
    }),
    expected: 'implicit deny',
  },
  // ==== DynamoDB transactions ==========================================================================
  {
    name: 'Example 1: a TransactWriteItems of Put, Update and ConditionCheck on table04: allowed',
    page: TRANSACTIONS,
    section: 'Example 1: Allow transactional operations',
    principal: txWriter,
    identity: [TX_EXAMPLE_1],
    request: transactWrite(
      { Put: putOrder('table04') },
      {
        Update: {
          TableName: 'table04',
          Key: { pk: S('order-0') },
          UpdateExpression: 'SET next = :n',
          ExpressionAttributeValues: { ':n': S('order-1') },
        },
      },
      {
        ConditionCheck: {
          TableName: 'table04',
          Key: { pk: S('customer-9') },
          ConditionExpression: 'attribute_exists(pk)',
        },
      },
    ),
    expected: 'allow',
  },
  {
    name: 'Example 2: a PutItem outside a transaction: denied',
    page: TRANSACTIONS,
    section: 'Example 2: Allow only transactional operations',
    principal: txWriter,
    identity: [TX_EXAMPLE_2],
    request: ddb('PutItem', putOrder('table04')),
    expected: 'implicit deny',
  },
  {
    name: 'Example 2: the same Put inside TransactWriteItems: allowed',
    page: TRANSACTIONS,
    section: 'Example 2: Allow only transactional operations',
    principal: txWriter,
    identity: [TX_EXAMPLE_2],
    request: transactWrite({ Put: putOrder('table04') }),
    expected: 'allow',
  },
  {
    name: 'Example 2: a Get inside TransactGetItems: allowed',
    page: TRANSACTIONS,
    section: 'Example 2: Allow only transactional operations',
    principal: txWriter,
    identity: [TX_EXAMPLE_2],
    request: ddb('TransactGetItems', {
      TransactItems: [{ Get: { TableName: 'table04', Key: { pk: S('order-1') } } }],
    }),
    expected: 'allow',
  },
  {
    name: 'Example 3: a transactional write: explicitly denied',
    page: TRANSACTIONS,
    section: 'Example 3: Allow nontransactional reads and writes, and block transactional reads and writes',
    principal: txWriter,
    identity: [TX_EXAMPLE_3],
    request: transactWrite({ Put: putOrder('table04') }),
    expected: 'explicit deny',
  },
  {
    name: 'Example 3: a nontransactional PutItem: allowed',
    page: TRANSACTIONS,
    section: 'Example 3: Allow nontransactional reads and writes, and block transactional reads and writes',
    principal: txWriter,
    identity: [TX_EXAMPLE_3],
    request: ddb('PutItem', putOrder('table04')),
    expected: 'allow',
  },
  {
    name: 'Example 4: a ConditionCheck asking ALL_OLD on failure: denied',
    page: TRANSACTIONS,
    section: 'Example 4: Prevent information from being returned on a ConditionCheck failure',
    principal: txWriter,
    identity: [TX_EXAMPLE_4],
    request: transactWrite(
      { Put: putOrder('table01') },
      {
        ConditionCheck: {
          TableName: 'table01',
          Key: { pk: S('customer-9') },
          ConditionExpression: 'attribute_exists(pk)',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        },
      },
    ),
    expected: 'implicit deny',
  },
  {
    name: 'Example 4: the same transaction returning nothing on failure: allowed',
    page: TRANSACTIONS,
    section: 'Example 4: Prevent information from being returned on a ConditionCheck failure',
    principal: txWriter,
    identity: [TX_EXAMPLE_4],
    request: transactWrite(
      { Put: putOrder('table01') },
      {
        ConditionCheck: {
          TableName: 'table01',
          Key: { pk: S('customer-9') },
          ConditionExpression: 'attribute_exists(pk)',
          ReturnValuesOnConditionCheckFailure: 'NONE',
        },
      },
    ),
    expected: 'allow',
  },
  // ==== KMS key policies ===============================================================================
  {
    name: 'the default key policy enables IAM: an identity policy allowing kms:Decrypt allows',
    page: KMS_DEFAULT,
    section: 'Allows access to the AWS account and enables IAM policies',
    principal: exampleRoleSession,
    identity: [DECRYPT_WITH_KEY],
    keyPolicy: policy(ENABLE_IAM),
    request: decrypt,
    expected: 'allow',
  },
  {
    name: 'the default key policy alone does not give a role the key',
    page: KMS_DEFAULT,
    section: 'Allows access to the AWS account and enables IAM policies',
    principal: exampleRoleSession,
    keyPolicy: policy(ENABLE_IAM),
    request: decrypt,
    expected: 'implicit deny',
  },
  {
    name: 'with IAM policies enabled, an identity policy denying the key still denies',
    page: KMS_DEFAULT,
    section: 'Allows access to the AWS account and enables IAM policies',
    principal: exampleRoleSession,
    identity: [
      policy(
        { Effect: 'Allow', Action: 'kms:*', Resource: '*' },
        { Effect: 'Deny', Action: 'kms:Decrypt', Resource: KEY },
      ),
    ],
    keyPolicy: policy(ENABLE_IAM),
    request: decrypt,
    expected: 'explicit deny',
  },
  {
    name: 'the key users statement alone allows the role named in it',
    page: KMS_DEFAULT,
    section: 'Allows key users to use the KMS key',
    principal: exampleRoleSession,
    keyPolicy: policy(KEY_USERS),
    request: decrypt,
    expected: 'allow',
  },
  {
    name: 'without the account in the key policy, an identity policy allowing the key is ineffective',
    page: KMS_DEFAULT,
    section: 'Allows access to the AWS account and enables IAM policies',
    principal: roleSessionPrincipal(`arn:aws:iam::${B}:role/OtherRole`, 'other-fn'),
    identity: [DECRYPT_WITH_KEY],
    keyPolicy: policy(KEY_ADMINISTRATORS, KEY_USERS),
    request: decrypt,
    expected: 'implicit deny',
  },
  {
    name: "a key policy that does not name the account does not admit even the account's root user",
    page: KMS_DEFAULT,
    section: 'Allows access to the AWS account and enables IAM policies',
    principal: rootPrincipal(B),
    keyPolicy: policy(KEY_ADMINISTRATORS, KEY_USERS),
    request: decrypt,
    expected: 'implicit deny',
  },
  {
    name: 'the default key policy admits the root user',
    page: KMS_DEFAULT,
    section: 'Allows access to the AWS account and enables IAM policies',
    principal: rootPrincipal(B),
    keyPolicy: policy(ENABLE_IAM),
    request: decrypt,
    expected: 'allow',
  },
  {
    name: 'key administrators may describe the key',
    page: KMS_DEFAULT,
    section: 'Allows key administrators to administer the KMS key',
    principal: userPrincipal(B, 'KMSAdminUser'),
    keyPolicy: policy(ENABLE_IAM, KEY_ADMINISTRATORS, KEY_USERS),
    request: { action: 'kms:DescribeKey', resource: KEY },
    expected: 'allow',
  },
  {
    name: 'key administrators may not use the key in cryptographic operations',
    page: KMS_DEFAULT,
    section: 'Allows key administrators to administer the KMS key',
    principal: userPrincipal(B, 'KMSAdminUser'),
    keyPolicy: policy(ENABLE_IAM, KEY_ADMINISTRATORS, KEY_USERS),
    request: decrypt,
    expected: 'implicit deny',
  },
  {
    name: 'kms:ViaService: ExampleUser may decrypt through EC2 in us-west-2',
    page: KMS_CONDITIONS,
    section: 'kms:ViaService',
    principal: exampleUser,
    keyPolicy: VIA_EC2_OR_RDS,
    request: { ...decrypt, context: { 'kms:viaservice': 'ec2.us-west-2.amazonaws.com' } },
    expected: 'allow',
  },
  {
    name: 'kms:ViaService: ExampleUser may not decrypt directly',
    page: KMS_CONDITIONS,
    section: 'kms:ViaService',
    principal: exampleUser,
    keyPolicy: VIA_EC2_OR_RDS,
    request: decrypt,
    expected: 'implicit deny',
  },
  {
    name: 'kms:ViaService: Encrypt through Lambda is explicitly denied',
    page: KMS_CONDITIONS,
    section: 'kms:ViaService',
    principal: exampleUser,
    keyPolicy: policy(ENABLE_IAM, KEY_USERS, NOT_VIA_LAMBDA),
    request: {
      action: 'kms:Encrypt',
      resource: KEY,
      context: { 'kms:viaservice': 'lambda.us-west-2.amazonaws.com' },
    },
    expected: 'explicit deny',
  },
];
