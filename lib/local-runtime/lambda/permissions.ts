/**
 * A function's resource-based policy, as Lambda builds it from the function's permissions
 * (AWS::Lambda::Permission, the AddPermission API): each permission is one Allow statement on the
 * function's ARN (with its qualifier, if any) naming the principal and the action, and each of
 * SourceArn, SourceAccount, FunctionUrlAuthType and InvokedViaFunctionUrl becomes a condition.
 * The wording of the statements is Lambda's (https://docs.aws.amazon.com/lambda/latest/dg/access-control-resource-based.html,
 * https://docs.aws.amazon.com/lambda/latest/dg/permissions-function-services.html and
 * https://docs.aws.amazon.com/lambda/latest/dg/urls-auth.html); the properties are
 * CloudFormation's (https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-lambda-permission.html).
 *
 * What the local evaluator cannot evaluate is refused, naming the permission, as a policy with an
 * unknown condition key is (iam/policy-document.ts): PrincipalOrgID (aws:PrincipalOrgID: the local
 * account belongs to no organization) and EventSourceToken (Alexa's, set by no local caller).
 */

/** A permission's statement, or why the local evaluator cannot evaluate it. */
export type PermissionStatement =
  | { readonly ok: true; readonly statement: Record<string, unknown> }
  | { readonly ok: false; readonly problem: string };

const ACCOUNT_ID = /^\d{12}$/;

/**
 * The Principal element of a permission: `*`; an account id (`{"AWS": "arn:aws:iam::<id>:root"}`,
 * as Lambda writes it); an IAM ARN; or a service principal (`sns.amazonaws.com`).
 */
function principalElement(principal: string): unknown {
  if (principal === '*') return '*';
  if (ACCOUNT_ID.test(principal)) return { AWS: `arn:aws:iam::${principal}:root` };
  if (principal.startsWith('arn:')) return { AWS: principal };
  return { Service: principal };
}

/**
 * The statement one permission adds to its function's policy. `sid` names it (the permission's
 * logical id); `functionArn` is the unqualified ARN of the function it names.
 */
export function permissionStatement(
  sid: string,
  functionArn: string,
  properties: Readonly<Record<string, unknown>>,
): PermissionStatement {
  const action = properties.Action;
  const principal = properties.Principal;
  if (typeof action !== 'string' || action === '') return { ok: false, problem: 'no Action' };
  if (typeof principal !== 'string' || principal === '') return { ok: false, problem: 'no Principal' };
  if (properties.PrincipalOrgID !== undefined) {
    return {
      ok: false,
      problem:
        'PrincipalOrgID (aws:PrincipalOrgID) is not evaluated locally: the local account belongs to no organization',
    };
  }
  if (properties.EventSourceToken !== undefined) {
    return { ok: false, problem: 'EventSourceToken (lambda:EventSourceToken) is set by no local caller' };
  }
  const condition: Record<string, Record<string, string>> = {};
  const add = (operator: string, key: string, value: string) => {
    condition[operator] = { ...condition[operator], [key]: value };
  };
  if (typeof properties.SourceArn === 'string') add('ArnLike', 'AWS:SourceArn', properties.SourceArn);
  if (typeof properties.SourceAccount === 'string') {
    add('StringEquals', 'AWS:SourceAccount', properties.SourceAccount);
  }
  if (typeof properties.FunctionUrlAuthType === 'string') {
    add('StringEquals', 'lambda:FunctionUrlAuthType', properties.FunctionUrlAuthType);
  }
  if (properties.InvokedViaFunctionUrl === true || properties.InvokedViaFunctionUrl === 'true') {
    add('Bool', 'lambda:InvokedViaFunctionUrl', 'true');
  }
  const qualifier = typeof properties.Qualifier === 'string' ? `:${properties.Qualifier}` : '';
  return {
    ok: true,
    statement: {
      Sid: sid,
      Effect: 'Allow',
      Principal: principalElement(principal),
      Action: action,
      Resource: `${functionArn}${qualifier}`,
      ...(Object.keys(condition).length > 0 ? { Condition: condition } : {}),
    },
  };
}
