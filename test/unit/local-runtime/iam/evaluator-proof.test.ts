/**
 * The proof of the local IAM evaluator: every case of evaluator-proof.cases.ts (taken from AWS's
 * pages, each naming its page) through the real policy compiler and evaluator, DynamoDB requests
 * through the gateway's own mapping to IAM checks. A multi-check request (a transaction, a batch) is
 * allowed when every check is, as the gateway's authorizeAll decides.
 */
import { dynamoDbChecks } from '../../../../lib/local-runtime/dynamodb/iam-requests';
import { compilePolicy } from '../../../../lib/local-runtime/iam/policy-document';
import {
  type Evaluation,
  evaluate,
  type PolicySet,
} from '../../../../lib/local-runtime/iam/policy-evaluation';
import {
  CASES,
  type Decision,
  DYNAMODB_ACCOUNT,
  DYNAMODB_TABLES,
  NOW,
  type PlainRequest,
  type ProofCase,
  REGION,
} from './evaluator-proof.cases';

/** The IAM checks of a case: its own, or those the gateway derives from its DynamoDB request. */
function checksOf(proof: ProofCase): PlainRequest[] {
  if (!('dynamodb' in proof.request)) return [proof.request];
  const { operation, request } = proof.request.dynamodb;
  const checks = dynamoDbChecks(operation, request, {
    region: REGION,
    accountId: DYNAMODB_ACCOUNT,
    tableOf: (name) => DYNAMODB_TABLES.find((table) => table.name === name),
    streamOfIterator: () => undefined,
  });
  if (typeof checks === 'string') throw new Error(`the gateway cannot map ${operation}: ${checks}`);
  if (checks.length === 0) throw new Error(`the gateway maps ${operation} to no check`);
  return checks;
}

function decisionOf(evaluation: Evaluation): Decision {
  if (evaluation.allowed) return 'allow';
  return evaluation.reason === 'explicit-deny-identity' || evaluation.reason === 'explicit-deny-resource'
    ? 'explicit deny'
    : 'implicit deny';
}

function decide(proof: ProofCase): Decision {
  const resourceDocument = proof.keyPolicy ?? proof.resourcePolicy;
  const policies: PolicySet = {
    identity: (proof.identity ?? []).map((document, index) =>
      compilePolicy(`identity policy ${index}`, 'identity', document),
    ),
    ...(resourceDocument === undefined
      ? {}
      : {
          resource: compilePolicy(
            proof.keyPolicy ? 'key policy' : 'resource policy',
            'resource',
            resourceDocument,
          ),
        }),
    ...(proof.keyPolicy === undefined ? {} : { resourcePolicyRequired: true }),
  };
  const decisions = checksOf(proof).map((check) =>
    decisionOf(evaluate({ principal: proof.principal, ...check }, policies, { region: REGION, now: NOW })),
  );
  if (decisions.includes('explicit deny')) return 'explicit deny';
  return decisions.includes('implicit deny') ? 'implicit deny' : 'allow';
}

describe('the IAM evaluator against the cases of AWS documentation', () => {
  it.each(CASES.map((proof) => [`${proof.name} [${proof.page} — ${proof.section}]`, proof] as const))(
    '%s',
    (_title, proof) => {
      expect(decide(proof)).toBe(proof.expected);
    },
  );

  it('has at least 40 cases, each naming an AWS documentation page and a section, none twice', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(40);
    for (const proof of CASES) {
      expect(proof.page).toMatch(/^https:\/\/docs\.aws\.amazon\.com\/[^ ]+\.html$/);
      expect(proof.section.trim()).not.toBe('');
    }
    const names = CASES.map((proof) => `${proof.page} ${proof.name}`);
    expect(new Set(names).size).toBe(names.length);
  });

  it('covers allow, implicit deny and explicit deny, and every operator family the evaluator has keys for', () => {
    const decisions = new Set(CASES.map((proof) => proof.expected));
    expect([...decisions].sort()).toEqual(['allow', 'explicit deny', 'implicit deny']);
    const operators = new Set(
      CASES.flatMap((proof) => [...(proof.identity ?? []), proof.resourcePolicy, proof.keyPolicy])
        .flatMap(
          (document) =>
            JSON.stringify(document ?? {}).match(/"(?:ForAllValues:|ForAnyValue:)?[A-Z][A-Za-z]+":\{/g) ?? [],
        )
        .map((found) => found.slice(1, -3)),
    );
    for (const family of [
      'StringEquals',
      'StringLike',
      'StringNotLike',
      'NumericLessThanEquals',
      'DateLessThan',
      'Bool',
      'ArnLike',
      'ArnEquals',
      'Null',
      'StringLikeIfExists',
      'ForAllValues:StringEquals',
      'ForAnyValue:StringEquals',
    ]) {
      expect(operators).toContain(family);
    }
  });
});
