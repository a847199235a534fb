/**
 * Who deploys a stack. On AWS, CloudFormation creates, updates and deletes a stack's resources as
 * the stack's execution role when the synthesizer names one (the CDK bootstrap's
 * `cdk-<qualifier>-cfn-exec-role-<account>-<region>`, in the assembly's manifest), else with the
 * credentials of whoever runs the deployment. Resource policies may name that role (a queue whose
 * administration is denied to every other principal), so the runtime provisions the same way: as a
 * session of the stack's execution role, or as the account's root (the developer's credentials).
 *
 * The execution role lives in the bootstrap stack, not in the app's templates: it is defined here
 * with the bootstrap's default execution policy (AdministratorAccess) and a trust policy for
 * CloudFormation
 * (https://docs.aws.amazon.com/cdk/v2/guide/bootstrapping-env.html#bootstrapping-env-roles).
 */
import type { SigningCredentials } from './credential-registry';
import { compilePolicy } from './policy-document';
import type { RuntimeIam } from './runtime-iam';

/** The session name CloudFormation's calls carry. */
export const DEPLOYING_SESSION_NAME = 'AWSCloudFormation';

/**
 * The credentials a stack is provisioned with: a session of `executionRoleArn` (as the manifest
 * writes it: `${AWS::Partition}`, `${AWS::AccountId}` and `${AWS::Region}` placeholders allowed),
 * defined in the account on first use; the root's when the stack names no execution role.
 */
export function deployingCredentials(
  iam: RuntimeIam,
  environment: { readonly accountId: string; readonly region: string },
  executionRoleArn: string | undefined,
): SigningCredentials {
  if (executionRoleArn === undefined) return iam.credentials.rootCredentials;
  const pseudo: Readonly<Record<string, string>> = {
    'AWS::Partition': 'aws',
    'AWS::AccountId': environment.accountId,
    'AWS::Region': environment.region,
  };
  const arn = executionRoleArn.replace(
    /\$\{(AWS::[A-Za-z]+)\}/g,
    (whole, name: string) => pseudo[name] ?? whole,
  );
  const name = arn.slice(arn.lastIndexOf('/') + 1);
  if (!iam.account.role(arn)) {
    iam.account.defineRole({
      arn,
      name,
      declaredAt: 'the CDK bootstrap stack (the CloudFormation execution role)',
      trustPolicy: compilePolicy(`${name} trust policy`, 'resource', {
        Version: '2012-10-17',
        Statement: [
          {
            Effect: 'Allow',
            Principal: { Service: 'cloudformation.amazonaws.com' },
            Action: 'sts:AssumeRole',
          },
        ],
      }),
    });
    iam.account.attach(
      arn,
      compilePolicy('AdministratorAccess', 'identity', {
        Version: '2012-10-17',
        Statement: [{ Effect: 'Allow', Action: '*', Resource: '*' }],
      }),
    );
  }
  const { accessKeyId, secretAccessKey, sessionToken } = iam.credentials.roleSession(
    arn,
    DEPLOYING_SESSION_NAME,
  );
  return { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) };
}
