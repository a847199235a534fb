/**
 * A function's permissions as its resource policy (lib/local-runtime/lambda/permissions.ts): each
 * AWS::Lambda::Permission is the statement Lambda writes for it, and the evaluator reads it as AWS
 * does: API Gateway for the named method only, the account's root as the account.
 */

import { compilePolicy } from '../../../../lib/local-runtime/iam/policy-document';
import { evaluate } from '../../../../lib/local-runtime/iam/policy-evaluation';
import { rootPrincipal, servicePrincipal } from '../../../../lib/local-runtime/iam/principals';
import { permissionStatement } from '../../../../lib/local-runtime/lambda/permissions';

const FUNCTION = 'arn:aws:lambda:us-east-1:000000000000:function:orders-submit';
const OPTIONS = { region: 'us-east-1', now: Date.UTC(2026, 11, 3) };
const METHOD = 'arn:aws:execute-api:us-east-1:000000000000:api123/prod/POST/orders';

function policyOf(properties: Record<string, unknown>) {
  const built = permissionStatement('Permission1', FUNCTION, properties);
  if (!built.ok) throw new Error(built.problem);
  return compilePolicy('fn policy', 'resource', { Version: '2012-10-17', Statement: [built.statement] });
}

describe('permissionStatement', () => {
  it('writes the statement Lambda writes: the principal, the action, SourceArn as ArnLike', () => {
    expect(
      permissionStatement('P', FUNCTION, {
        Action: 'lambda:InvokeFunction',
        Principal: 'apigateway.amazonaws.com',
        SourceArn: 'arn:aws:execute-api:us-east-1:000000000000:api123/prod/POST/orders',
        SourceAccount: '000000000000',
      }),
    ).toEqual({
      ok: true,
      statement: {
        Sid: 'P',
        Effect: 'Allow',
        Principal: { Service: 'apigateway.amazonaws.com' },
        Action: 'lambda:InvokeFunction',
        Resource: FUNCTION,
        Condition: {
          ArnLike: { 'AWS:SourceArn': METHOD },
          StringEquals: { 'AWS:SourceAccount': '000000000000' },
        },
      },
    });
  });

  it('lets API Gateway invoke for the named method, and not for another', () => {
    const policy = policyOf({
      Action: 'lambda:InvokeFunction',
      Principal: 'apigateway.amazonaws.com',
      SourceArn: 'arn:aws:execute-api:us-east-1:000000000000:api123/*/POST/orders',
    });
    const invoke = (sourceArn: string) =>
      evaluate(
        {
          principal: servicePrincipal('apigateway.amazonaws.com'),
          action: 'lambda:InvokeFunction',
          resource: FUNCTION,
          context: { 'aws:sourcearn': sourceArn, 'aws:sourceaccount': '000000000000' },
        },
        { identity: [], resource: policy },
        OPTIONS,
      ).allowed;
    expect(invoke(METHOD)).toBe(true);
    expect(invoke('arn:aws:execute-api:us-east-1:000000000000:api123/prod/GET/orders')).toBe(false);
  });

  it('names an account as its root, and a qualifier in the resource', () => {
    const built = permissionStatement('P', FUNCTION, {
      Action: 'lambda:InvokeFunction',
      Principal: '000000000000',
      Qualifier: 'live',
    });
    expect(built).toMatchObject({
      ok: true,
      statement: { Principal: { AWS: 'arn:aws:iam::000000000000:root' }, Resource: `${FUNCTION}:live` },
    });
    const policy = policyOf({ Action: 'lambda:InvokeFunction', Principal: '000000000000' });
    expect(
      evaluate(
        {
          principal: rootPrincipal('000000000000'),
          action: 'lambda:InvokeFunction',
          resource: FUNCTION,
          context: {},
        },
        { identity: [], resource: policy },
        OPTIONS,
      ).allowed,
    ).toBe(true);
  });

  it('refuses what the local evaluator cannot evaluate, naming it', () => {
    expect(
      permissionStatement('P', FUNCTION, {
        Action: 'lambda:InvokeFunction',
        Principal: '*',
        PrincipalOrgID: 'o-1',
      }),
    ).toEqual({ ok: false, problem: expect.stringContaining('PrincipalOrgID') });
    expect(permissionStatement('P', FUNCTION, { Principal: '*' })).toEqual({
      ok: false,
      problem: 'no Action',
    });
  });
});
