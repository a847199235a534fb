/**
 * The evaluator's own logic (iam/policy-evaluation.ts, policy-document.ts, condition-operators.ts):
 * deny wins, identity or resource allow, account delegation, KMS key policies, conditions and their
 * missing-key rules. The table of cases taken from AWS's pages is evaluator-proof.test.ts.
 */
import { compilePolicy } from '../../../../lib/local-runtime/iam/policy-document';
import { PolicyDocumentError } from '../../../../lib/local-runtime/iam/policy-document-error';
import {
  type AuthorizationRequest,
  evaluate,
  type PolicySet,
} from '../../../../lib/local-runtime/iam/policy-evaluation';
import {
  roleSessionPrincipal,
  rootPrincipal,
  servicePrincipal,
  userPrincipal,
} from '../../../../lib/local-runtime/iam/principals';

const ACCOUNT = '111122223333';
const ROLE = `arn:aws:iam::${ACCOUNT}:role/agent`;
const TABLE = `arn:aws:dynamodb:us-east-1:${ACCOUNT}:table/State`;
const QUEUE = `arn:aws:sqs:us-east-1:${ACCOUNT}:replies`;
const session = roleSessionPrincipal(ROLE, 'agent-fn');
const options = { region: 'us-east-1', now: Date.parse('2026-12-02T12:00:00Z') };

const identity = (...Statement: unknown[]) =>
  compilePolicy('role agent: inline', 'identity', { Version: '2012-10-17', Statement });
const resource = (...Statement: unknown[]) =>
  compilePolicy('queue policy', 'resource', { Version: '2012-10-17', Statement });

function decide(request: Partial<AuthorizationRequest>, policies: PolicySet) {
  return evaluate(
    { principal: session, action: 'dynamodb:GetItem', resource: TABLE, ...request },
    policies,
    options,
  );
}

describe('policy evaluation: allow and deny', () => {
  it('denies implicitly when nothing allows', () => {
    expect(decide({}, { identity: [] })).toEqual({ allowed: false, reason: 'no-identity-allow' });
  });

  it('allows by an identity policy naming the action (any case, wildcards) and the resource', () => {
    for (const Action of ['dynamodb:GetItem', 'DynamoDB:getitem', 'dynamodb:Get*', 'dynamodb:*', '*']) {
      const verdict = decide({}, { identity: [identity({ Effect: 'Allow', Action, Resource: TABLE })] });
      expect(verdict.allowed).toBe(true);
    }
    expect(
      decide({}, { identity: [identity({ Effect: 'Allow', Action: 'dynamodb:Query', Resource: TABLE })] })
        .allowed,
    ).toBe(false);
    expect(
      decide({}, { identity: [identity({ Effect: 'Allow', Action: '*', Resource: `${TABLE}/index/*` })] })
        .allowed,
    ).toBe(false);
  });

  it('lets an explicit deny win over any allow, and says where it was', () => {
    const verdict = decide(
      {},
      {
        identity: [identity({ Effect: 'Allow', Action: '*', Resource: '*' })],
        resource: resource({
          Sid: 'No',
          Effect: 'Deny',
          Principal: '*',
          Action: 'dynamodb:*',
          Resource: '*',
        }),
      },
    );
    expect(verdict).toEqual({
      allowed: false,
      reason: 'explicit-deny-resource',
      deniedBy: { policy: 'queue policy', kind: 'resource', sid: 'No' },
    });
  });

  it('honours NotAction and NotResource', () => {
    const allowAllButDelete = identity({
      Effect: 'Allow',
      NotAction: 'dynamodb:Delete*',
      NotResource: QUEUE,
    });
    expect(decide({}, { identity: [allowAllButDelete] }).allowed).toBe(true);
    expect(decide({ action: 'dynamodb:DeleteItem' }, { identity: [allowAllButDelete] }).allowed).toBe(false);
    expect(
      decide({ resource: QUEUE, action: 'sqs:SendMessage' }, { identity: [allowAllButDelete] }).allowed,
    ).toBe(false);
  });

  it('allows by a resource policy that names the role, the session or everyone, without an identity policy', () => {
    for (const Principal of [{ AWS: ROLE }, { AWS: session.arn }, '*', { AWS: '*' }]) {
      const policies = {
        identity: [],
        resource: resource({ Effect: 'Allow', Principal, Action: 'sqs:SendMessage', Resource: QUEUE }),
      };
      expect(decide({ action: 'sqs:SendMessage', resource: QUEUE }, policies).allowed).toBe(true);
    }
  });

  it('does not allow by a resource policy naming only the account: that delegates to identity policies', () => {
    for (const AWS of [ACCOUNT, `arn:aws:iam::${ACCOUNT}:root`]) {
      const policies = {
        identity: [],
        resource: resource({ Effect: 'Allow', Principal: { AWS }, Action: 'sqs:*', Resource: QUEUE }),
      };
      expect(decide({ action: 'sqs:SendMessage', resource: QUEUE }, policies)).toEqual({
        allowed: false,
        reason: 'no-identity-allow',
      });
      // The root user itself is the account.
      expect(
        evaluate(
          { principal: rootPrincipal(ACCOUNT), action: 'sqs:SendMessage', resource: QUEUE },
          policies,
          options,
        ).allowed,
      ).toBe(true);
    }
  });

  it('lets the root user do anything no explicit deny forbids', () => {
    const root = rootPrincipal(ACCOUNT);
    expect(
      evaluate(
        { principal: root, action: 'dynamodb:DeleteTable', resource: TABLE },
        { identity: [] },
        options,
      ).allowed,
    ).toBe(true);
    const deny = resource({ Effect: 'Deny', Principal: { AWS: ACCOUNT }, Action: 'sqs:*', Resource: QUEUE });
    expect(
      evaluate(
        { principal: root, action: 'sqs:PurgeQueue', resource: QUEUE },
        { identity: [], resource: deny },
        options,
      ).allowed,
    ).toBe(false);
  });

  it('applies a Deny naming the account to every principal of it', () => {
    const deny = resource({ Effect: 'Deny', Principal: { AWS: ACCOUNT }, Action: 'sqs:*', Resource: QUEUE });
    const allow = identity({ Effect: 'Allow', Action: 'sqs:*', Resource: QUEUE });
    expect(
      decide({ action: 'sqs:PurgeQueue', resource: QUEUE }, { identity: [allow], resource: deny }).allowed,
    ).toBe(false);
  });

  it('gives a service principal only what a resource policy grants it', () => {
    const sns = servicePrincipal('sns.amazonaws.com');
    const request = {
      principal: sns,
      action: 'sqs:SendMessage',
      resource: QUEUE,
      context: { 'aws:sourcearn': 'arn:aws:sns:us-east-1:111122223333:t' },
    };
    expect(evaluate(request, { identity: [] }, options)).toEqual({
      allowed: false,
      reason: 'no-resource-allow',
    });
    const grant = resource({
      Effect: 'Allow',
      Principal: { Service: 'sns.amazonaws.com' },
      Action: 'sqs:SendMessage',
      Resource: QUEUE,
      Condition: { ArnEquals: { 'aws:SourceArn': 'arn:aws:sns:us-east-1:111122223333:t' } },
    });
    expect(evaluate(request, { identity: [], resource: grant }, options).allowed).toBe(true);
    expect(
      evaluate(
        { ...request, context: { 'aws:sourcearn': 'arn:aws:sns:us-east-1:111122223333:other' } },
        { identity: [], resource: grant },
        options,
      ).allowed,
    ).toBe(false);
  });
});

describe('policy evaluation: KMS key policies', () => {
  const KEY = `arn:aws:kms:us-east-1:${ACCOUNT}:key/k-1`;
  const enableIam = resource({
    Effect: 'Allow',
    Principal: { AWS: `arn:aws:iam::${ACCOUNT}:root` },
    Action: 'kms:*',
    Resource: '*',
  });
  const allowDecrypt = identity({ Effect: 'Allow', Action: 'kms:Decrypt', Resource: KEY });
  const request = { action: 'kms:Decrypt', resource: KEY };

  it('allows by an identity policy only when the key policy enables the account', () => {
    expect(
      decide(request, { identity: [allowDecrypt], resource: enableIam, resourcePolicyRequired: true })
        .allowed,
    ).toBe(true);
    expect(decide(request, { identity: [], resource: enableIam, resourcePolicyRequired: true })).toEqual({
      allowed: false,
      reason: 'no-identity-allow',
    });
    const onlyAService = resource({
      Effect: 'Allow',
      Principal: { Service: 'sns.amazonaws.com' },
      Action: 'kms:*',
      Resource: '*',
    });
    expect(
      decide(request, { identity: [allowDecrypt], resource: onlyAService, resourcePolicyRequired: true }),
    ).toEqual({
      allowed: false,
      reason: 'no-resource-allow',
    });
  });

  it('allows a principal the key policy names, without an identity policy', () => {
    const direct = resource({
      Effect: 'Allow',
      Principal: { AWS: ROLE },
      Action: 'kms:Decrypt',
      Resource: '*',
    });
    expect(decide(request, { identity: [], resource: direct, resourcePolicyRequired: true }).allowed).toBe(
      true,
    );
  });
});

describe('conditions', () => {
  const withCondition = (Condition: unknown) =>
    identity({ Effect: 'Allow', Action: 'dynamodb:UpdateItem', Resource: TABLE, Condition });
  const check = (Condition: unknown, context: Record<string, string | string[]>) =>
    decide({ action: 'dynamodb:UpdateItem', context }, { identity: [withCondition(Condition)] }).allowed;

  it('ForAllValues holds when every request value is listed, and when the key is empty or missing', () => {
    const only = { 'ForAllValues:StringEquals': { 'dynamodb:Attributes': ['OrderID', 'CallsMade'] } };
    expect(check(only, { 'dynamodb:attributes': ['OrderID', 'CallsMade'] })).toBe(true);
    expect(check(only, { 'dynamodb:attributes': ['OrderID', 'Steps'] })).toBe(false);
    expect(check(only, { 'dynamodb:attributes': [] })).toBe(true);
    expect(check(only, {})).toBe(true);
  });

  it('ForAnyValue needs one listed value and fails on a missing key', () => {
    const any = { 'ForAnyValue:StringLike': { 'dynamodb:Attributes': ['Call*'] } };
    expect(check(any, { 'dynamodb:attributes': ['OrderID', 'CallsMade'] })).toBe(true);
    expect(check(any, { 'dynamodb:attributes': ['OrderID'] })).toBe(false);
    expect(check(any, {})).toBe(false);
  });

  it('treats a missing key as false for positive operators and true for negated ones and IfExists', () => {
    expect(check({ StringEquals: { 'dynamodb:ReturnValues': 'NONE' } }, {})).toBe(false);
    expect(check({ StringNotEquals: { 'dynamodb:ReturnValues': 'ALL_OLD' } }, {})).toBe(true);
    expect(check({ StringEqualsIfExists: { 'dynamodb:ReturnValues': 'NONE' } }, {})).toBe(true);
    expect(
      check(
        { StringEqualsIfExists: { 'dynamodb:ReturnValues': 'NONE' } },
        { 'dynamodb:returnvalues': 'ALL_NEW' },
      ),
    ).toBe(false);
    expect(check({ Null: { 'dynamodb:ReturnValues': 'true' } }, {})).toBe(true);
    expect(check({ Null: { 'dynamodb:ReturnValues': 'false' } }, {})).toBe(false);
  });

  it('ORs the values of one key and ANDs keys and operators', () => {
    const both = {
      StringEquals: { 'dynamodb:ReturnValues': ['NONE', 'UPDATED_NEW'] },
      ArnLike: { 'aws:PrincipalArn': 'arn:aws:iam::*:role/age*' },
    };
    expect(check(both, { 'dynamodb:returnvalues': 'UPDATED_NEW' })).toBe(true);
    expect(check(both, { 'dynamodb:returnvalues': 'ALL_NEW' })).toBe(false);
    const otherRole = { ...both, ArnLike: { 'aws:PrincipalArn': 'arn:aws:iam::*:role/supervisor' } };
    expect(check(otherRole, { 'dynamodb:returnvalues': 'NONE' })).toBe(false);
  });

  it('reads the principal keys of a role session: the role as PrincipalArn, AssumedRole as type', () => {
    expect(check({ ArnEquals: { 'aws:PrincipalArn': ROLE } }, {})).toBe(true);
    expect(check({ StringEquals: { 'aws:PrincipalType': 'AssumedRole' } }, {})).toBe(true);
    expect(check({ Bool: { 'aws:SecureTransport': 'true' } }, {})).toBe(true);
    expect(check({ Bool: { 'aws:SecureTransport': false } }, {})).toBe(false);
  });

  it('replaces policy variables in resources and condition values (Version 2012-10-17)', () => {
    const user = userPrincipal(ACCOUNT, 'web-shop');
    const own = identity({
      Effect: 'Allow',
      Action: 'sqs:ReceiveMessage',
      Resource: `arn:aws:sqs:*:*:\${aws:username}-*`,
    });
    const ask = (name: string) =>
      evaluate(
        {
          principal: user,
          action: 'sqs:ReceiveMessage',
          resource: `arn:aws:sqs:us-east-1:${ACCOUNT}:${name}`,
        },
        { identity: [own] },
        options,
      ).allowed;
    expect(ask('web-shop-replies')).toBe(true);
    expect(ask('call-center-replies')).toBe(false);
    // A role session has no aws:username: the variable's resource matches nothing.
    expect(
      evaluate(
        {
          principal: session,
          action: 'sqs:ReceiveMessage',
          resource: `arn:aws:sqs:us-east-1:${ACCOUNT}:agent-fn-x`,
        },
        { identity: [own] },
        options,
      ).allowed,
    ).toBe(false);
  });
});

describe('policies the evaluator refuses (the local deploy fails naming them)', () => {
  const refuse = (document: unknown, kind: 'identity' | 'resource' = 'identity') => {
    try {
      compilePolicy('p', kind, document);
    } catch (error) {
      expect(error).toBeInstanceOf(PolicyDocumentError);
      return (error as PolicyDocumentError).problems;
    }
    throw new Error('expected the policy to be refused');
  };
  const statement = (extra: Record<string, unknown>) => ({
    Version: '2012-10-17',
    Statement: [{ Effect: 'Allow', Action: 'sqs:*', Resource: '*', ...extra }],
  });

  it('names an unknown condition operator', () => {
    expect(refuse(statement({ Condition: { StringSortOfEquals: { 'aws:PrincipalArn': 'x' } } }))).toEqual([
      expect.stringContaining('condition operator StringSortOfEquals is not one the local evaluator knows'),
    ]);
  });

  it('names a condition key the evaluator does not set', () => {
    expect(refuse(statement({ Condition: { IpAddress: { 'aws:SourceIp': '10.0.0.0/8' } } }))).toEqual([
      expect.stringContaining('condition key aws:SourceIp'),
    ]);
  });

  it('refuses a multivalued key without ForAllValues/ForAnyValue, and values of the wrong type', () => {
    expect(refuse(statement({ Condition: { StringEquals: { 'dynamodb:Attributes': 'a' } } }))[0]).toContain(
      'multivalued',
    );
    expect(refuse(statement({ Condition: { NumericLessThan: { 'aws:EpochTime': 'soon' } } }))[0]).toContain(
      'not a number',
    );
  });

  it('refuses a principal in an identity policy, none in a resource policy, and federated principals', () => {
    expect(refuse(statement({ Principal: '*' }))[0]).toContain('a Principal in an identity policy');
    expect(refuse(statement({}), 'resource')[0]).toContain('no Principal');
    expect(
      refuse(statement({ Principal: { Federated: 'cognito-identity.amazonaws.com' } }), 'resource')[0],
    ).toContain('Federated');
  });

  it('refuses a policy variable naming a key the evaluator does not set, or a multivalued key', () => {
    expect(refuse(statement({ Resource: `arn:aws:s3:::bucket/\${aws:PrincipalTag/team}/*` }))).toEqual([
      expect.stringContaining(`policy variable \${aws:PrincipalTag/team} (in Resource) names a key`),
    ]);
    expect(
      refuse(statement({ Condition: { StringEquals: { 'aws:username': `\${www.amazon.com:user_id}` } } })),
    ).toEqual([expect.stringContaining(`policy variable \${www.amazon.com:user_id}`)]);
    expect(
      refuse(statement({ Condition: { StringLike: { 'aws:username': `\${dynamodb:LeadingKeys}` } } }))[0],
    ).toContain('names a multivalued key');
    // Special variables and keys the evaluator sets are fine.
    expect(() =>
      compilePolicy('p', 'identity', statement({ Resource: `arn:aws:s3:::b/\${*}/\${aws:username}` })),
    ).not.toThrow();
  });

  it('refuses NotPrincipal with Allow (IAM supports it with Deny only)', () => {
    const notPrincipal = (Effect: string) => ({
      Version: '2012-10-17',
      Statement: [{ Effect, NotPrincipal: { AWS: ACCOUNT }, Action: 'sqs:*', Resource: '*' }],
    });
    expect(refuse(notPrincipal('Allow'), 'resource')[0]).toContain('NotPrincipal with Allow');
    expect(() => compilePolicy('p', 'resource', notPrincipal('Deny'))).not.toThrow();
  });

  it('refuses an identity statement without a resource, as IAM does', () => {
    expect(refuse({ Statement: [{ Effect: 'Allow', Action: 'sqs:*' }] })[0]).toContain('no Resource');
  });
});
