/**
 * A queue policy's explicit denies, evaluated per request. AWS evaluates a queue's resource policy
 * together with the caller's identity policies: an explicit Deny in either wins, and otherwise an
 * Allow in either (same account) is needed. The runtime models no identity policy, so it cannot
 * tell what is allowed: every request not explicitly denied is allowed, and Allow statements are
 * not evaluated. What is evaluated, of each `"Effect": "Deny"` statement:
 *
 *   Action     names or wildcards (`sqs:*`, `sqs:Receive*`), case-insensitive
 *   Resource   the queue's ARN, or wildcards (`*` within the ARN); absent: the queue
 *   Principal  `*`, `{"AWS": "*"}`, or `{"AWS": <account id | account root | principal ARN>}`
 *   Condition  on `aws:PrincipalArn`: ArnEquals/ArnLike, ArnNotEquals/ArnNotLike (each of the six
 *              ARN components matched on its own, `*` and `?` within it), StringEquals/StringLike,
 *              StringNotEquals/StringNotLike; on `aws:SecureTransport`: Bool (see below)
 *
 * Anything else in a Deny statement (NotAction, NotPrincipal, NotResource, another condition key or
 * operator, `...IfExists`, a service or federated principal) makes the statement not apply locally,
 * and is reported once, when the policy is set, so it is never silently ignored.
 *
 * `aws:SecureTransport` is `true` locally: the runtime's endpoints listen on loopback only, where
 * nothing TLS guards against on AWS (a network between caller and queue) exists. So a TLS-only
 * statement (CDK's `enforceSSL`: Deny sqs:* when `Bool aws:SecureTransport false`) denies nothing,
 * as it denies nothing to an SDK on AWS, which uses HTTPS.
 */

/** Who is calling and what they ask for: the request context of one SQS request. */
export interface SqsRequestContext {
  /** `sqs:<Action>` as IAM names it (batch operations are authorized as their single action). */
  readonly action: string;
  /** The caller's `aws:PrincipalArn`. */
  readonly principalArn: string;
  readonly queueArn: string;
}

export interface CompiledQueuePolicy {
  /** The first explicit Deny that applies to the request, by Sid (or index), if any. */
  deniedBy(request: SqsRequestContext): string | undefined;
  /** What in the policy is not evaluated locally, one line each (statements that do not apply). */
  readonly unsupported: readonly string[];
}

type Test = (request: SqsRequestContext) => boolean;

const SUPPORTED_STATEMENT_KEYS = new Set(['Sid', 'Effect', 'Action', 'Resource', 'Principal', 'Condition']);
const SECURE_TRANSPORT_LOCALLY = 'true';

/** A glob (`*` any run, `?` one character) as a regular expression over the whole string. */
function globPattern(glob: string, flags = ''): RegExp {
  const escaped = glob
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${escaped}$`, flags);
}

/** The six colon-separated components of an ARN (the last keeps its own colons). */
function arnComponents(arn: string): string[] | undefined {
  const parts = arn.split(':');
  if (parts.length < 6) return undefined;
  return [...parts.slice(0, 5), parts.slice(5).join(':')];
}

/** IAM's ARN matching: component by component, each with its own wildcards, case-sensitive. */
export function arnMatches(pattern: string, arn: string): boolean {
  if (pattern === '*') return true;
  const wanted = arnComponents(pattern);
  const actual = arnComponents(arn);
  if (!wanted || !actual) return false;
  return wanted.every((component, index) => globPattern(component).test(actual[index] as string));
}

function strings(value: unknown): string[] | undefined {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return value as string[];
  return undefined;
}

const ARN_OPERATORS: Readonly<
  Record<string, { negated: boolean; match: (p: string, v: string) => boolean }>
> = {
  ArnEquals: { negated: false, match: arnMatches },
  ArnLike: { negated: false, match: arnMatches },
  ArnNotEquals: { negated: true, match: arnMatches },
  ArnNotLike: { negated: true, match: arnMatches },
  StringEquals: { negated: false, match: (pattern, value) => pattern === value },
  StringLike: { negated: false, match: (pattern, value) => globPattern(pattern).test(value) },
  StringNotEquals: { negated: true, match: (pattern, value) => pattern === value },
  StringNotLike: { negated: true, match: (pattern, value) => globPattern(pattern).test(value) },
};

/**
 * One condition block (`{ Operator: { key: value | [values] } }`): every operator and key must hold.
 * A positive operator holds when the key matches any value, a negated one when it matches none.
 */
function compileCondition(condition: unknown, problems: string[]): Test | undefined {
  if (typeof condition !== 'object' || condition === null || Array.isArray(condition)) {
    problems.push('a Condition that is not an object');
    return undefined;
  }
  const tests: Test[] = [];
  for (const [operator, block] of Object.entries(condition)) {
    if (typeof block !== 'object' || block === null || Array.isArray(block)) {
      problems.push(`condition operator ${operator} without a key map`);
      continue;
    }
    for (const [key, raw] of Object.entries(block as Record<string, unknown>)) {
      const values = strings(raw) ?? (typeof raw === 'boolean' ? [String(raw)] : undefined);
      if (!values) {
        problems.push(`condition ${operator} on ${key} with values that are not strings`);
        continue;
      }
      const lowerKey = key.toLowerCase();
      const arnOperator = ARN_OPERATORS[operator];
      if (lowerKey === 'aws:principalarn' && arnOperator) {
        const { negated, match } = arnOperator;
        tests.push((request) => values.some((value) => match(value, request.principalArn)) !== negated);
      } else if (lowerKey === 'aws:securetransport' && operator === 'Bool') {
        tests.push(() => values.some((value) => value.toLowerCase() === SECURE_TRANSPORT_LOCALLY));
      } else {
        problems.push(
          `condition operator ${operator} on key ${key} is not evaluated locally (supported: ` +
            `${Object.keys(ARN_OPERATORS).join(', ')} on aws:PrincipalArn; Bool on aws:SecureTransport)`,
        );
      }
    }
  }
  return problems.length > 0 ? undefined : (request) => tests.every((test) => test(request));
}

/** `*`, `{"AWS": ...}`: which callers a Deny names. Account ids and roots name the whole account. */
function compilePrincipal(principal: unknown, problems: string[]): Test | undefined {
  if (principal === '*') return () => true;
  if (typeof principal !== 'object' || principal === null || Array.isArray(principal)) {
    problems.push('a Principal that is neither "*" nor an object');
    return undefined;
  }
  const others = Object.keys(principal).filter((type) => type !== 'AWS');
  if (others.length > 0) {
    // Local deliveries (EventBridge, SNS, pipes) act as the runtime's default principal, not as the
    // service: a Deny naming a service principal would not deny them what it denies on AWS.
    problems.push(`a ${others.join('/')} principal (local callers are IAM users or the default principal)`);
    return undefined;
  }
  const names = strings((principal as { AWS?: unknown }).AWS);
  if (!names) {
    problems.push('an AWS principal that is not a string or a list of strings');
    return undefined;
  }
  const tests = names.map((name): Test => {
    if (name === '*') return () => true;
    const account = /^\d{12}$/.test(name) ? name : /^arn:aws[a-z-]*:iam::(\d{12}):root$/.exec(name)?.[1];
    if (account !== undefined) return (request) => arnComponents(request.principalArn)?.[4] === account;
    return (request) => request.principalArn === name;
  });
  return (request) => tests.some((test) => test(request));
}

function compileStatement(
  statement: unknown,
  index: number,
): { deny?: Test; sid: string; problems: string[] } {
  const problems: string[] = [];
  if (typeof statement !== 'object' || statement === null || Array.isArray(statement)) {
    return { sid: `#${index}`, problems: ['a statement that is not an object'] };
  }
  const fields = statement as Record<string, unknown>;
  const sid = typeof fields.Sid === 'string' && fields.Sid !== '' ? fields.Sid : `#${index}`;
  // Allow statements need identity policies to mean anything; none are modelled (see above).
  if (fields.Effect !== 'Deny') return { sid, problems };
  for (const key of Object.keys(fields)) {
    if (!SUPPORTED_STATEMENT_KEYS.has(key)) problems.push(`${key} is not evaluated locally`);
  }
  const actions = strings(fields.Action);
  if (!actions && fields.Action !== undefined) problems.push('an Action that is not a string or list');
  const actionPatterns = (actions ?? []).map((action) => globPattern(action, 'i'));
  const resources = fields.Resource === undefined ? ['*'] : strings(fields.Resource);
  if (!resources) problems.push('a Resource that is not a string or list');
  if (fields.Principal === undefined && fields.NotPrincipal === undefined) {
    problems.push('no Principal (a queue policy names one)');
  }
  const principal = fields.Principal === undefined ? undefined : compilePrincipal(fields.Principal, problems);
  const condition =
    fields.Condition === undefined ? () => true : compileCondition(fields.Condition, problems);
  if (problems.length > 0 || !principal || !condition) return { sid, problems };
  return {
    sid,
    problems,
    deny: (request) =>
      actionPatterns.some((pattern) => pattern.test(request.action)) &&
      (resources ?? []).some((resource) => arnMatches(resource, request.queueArn)) &&
      principal(request) &&
      condition(request),
  };
}

/**
 * Compiles a queue's `Policy` attribute. A policy that is not JSON, or has no statements, denies
 * nothing and says so.
 */
export function compileQueuePolicy(policyText: string): CompiledQueuePolicy {
  let document: unknown;
  try {
    document = JSON.parse(policyText);
  } catch {
    return { deniedBy: () => undefined, unsupported: ['the policy is not JSON'] };
  }
  const raw = (document as { Statement?: unknown } | null)?.Statement;
  const statements = Array.isArray(raw) ? raw : raw === undefined ? [] : [raw];
  const compiled = statements.map(compileStatement);
  const denies = compiled.filter((statement) => statement.deny !== undefined);
  return {
    deniedBy: (request) => denies.find((statement) => statement.deny?.(request))?.sid,
    unsupported: compiled.flatMap(({ sid, problems }) =>
      problems.map((problem) => `Deny statement ${sid} does not apply locally: ${problem}`),
    ),
  };
}

/** The IAM action of each queue-scoped SQS operation: a batch is authorized as its single action. */
export const SQS_ACTION_OF_OPERATION: Readonly<Record<string, string>> = {
  GetQueueUrl: 'sqs:GetQueueUrl',
  DeleteQueue: 'sqs:DeleteQueue',
  GetQueueAttributes: 'sqs:GetQueueAttributes',
  SetQueueAttributes: 'sqs:SetQueueAttributes',
  SendMessage: 'sqs:SendMessage',
  SendMessageBatch: 'sqs:SendMessage',
  ReceiveMessage: 'sqs:ReceiveMessage',
  DeleteMessage: 'sqs:DeleteMessage',
  DeleteMessageBatch: 'sqs:DeleteMessage',
  ChangeMessageVisibility: 'sqs:ChangeMessageVisibility',
  ChangeMessageVisibilityBatch: 'sqs:ChangeMessageVisibility',
  PurgeQueue: 'sqs:PurgeQueue',
  ListDeadLetterSourceQueues: 'sqs:ListDeadLetterSourceQueues',
  TagQueue: 'sqs:TagQueue',
  UntagQueue: 'sqs:UntagQueue',
  ListQueueTags: 'sqs:ListQueueTags',
};
