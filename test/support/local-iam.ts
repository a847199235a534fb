/**
 * A local account for tests of one emulated service: roles and users with the identity policies a
 * test gives them, their credentials (role sessions with tokens, as functions get them), and the
 * authorizer the service under test is handed (`iam` of its options), in the mode the test asks.
 * The policies go through the same compiler and evaluator as a template's (lib/local-runtime/iam).
 */

import {
  type CallerCredentials,
  createRuntimeIam,
  type IamMode,
  type RuntimeIam,
} from '../../lib/local-runtime/iam';
import { LocalIdentities } from '../../lib/local-runtime/iam/identities';
import { compilePolicy } from '../../lib/local-runtime/iam/policy-document';

export const TEST_ACCOUNT = '000000000000';
export const TEST_REGION = 'us-east-1';
/** The root's credentials in the test account (target.json's `credentials` of a runtime). */
export const TEST_ROOT = { accessKeyId: 'local', secretAccessKey: 'local' } as const;

export interface TestAccount {
  readonly iam: RuntimeIam;
  /** Lines the authorizer logged (report mode's would-be denials). */
  readonly logged: string[];
  /** A role trusted by `service`, with these statements as its identity policy; a session of it. */
  role(
    name: string,
    statements: readonly unknown[],
    options?: { readonly service?: string; readonly session?: string },
  ): CallerCredentials;
  /** A user with these statements as its identity policy (none: no policy at all). */
  user(name: string, statements?: readonly unknown[]): CallerCredentials;
  /** SDK credentials of a caller (with its session token when it has one). */
  sdkCredentials(caller: CallerCredentials): {
    accessKeyId: string;
    secretAccessKey: string;
    sessionToken?: string;
  };
}

export function testAccount(mode: IamMode = 'enforce'): TestAccount {
  const logged: string[] = [];
  const iam = createRuntimeIam({
    accountId: TEST_ACCOUNT,
    region: TEST_REGION,
    mode,
    log: (line) => logged.push(line),
    root: TEST_ROOT,
    users: new LocalIdentities(undefined, TEST_ACCOUNT),
  });
  const identityPolicy = (name: string, statements: readonly unknown[]) =>
    compilePolicy(name, 'identity', { Version: '2012-10-17', Statement: statements });
  return {
    iam,
    logged,
    role(name, statements, options = {}) {
      const arn = `arn:aws:iam::${TEST_ACCOUNT}:role/${name}`;
      iam.account.defineRole({
        arn,
        name,
        declaredAt: `test/${name}`,
        trustPolicy: compilePolicy(`${name} trust`, 'resource', {
          Version: '2012-10-17',
          Statement: [
            {
              Effect: 'Allow',
              Principal: { Service: options.service ?? 'lambda.amazonaws.com' },
              Action: 'sts:AssumeRole',
            },
          ],
        }),
      });
      if (statements.length > 0) iam.account.attach(arn, identityPolicy(`${name} policy`, statements));
      return iam.credentials.roleSession(arn, options.session ?? name);
    },
    user(name, statements = []) {
      const caller = iam.credentials.user(name);
      if (statements.length > 0)
        iam.account.attach(caller.principal.arn, identityPolicy(`${name} policy`, statements));
      return caller;
    },
    sdkCredentials: ({ accessKeyId, secretAccessKey, sessionToken }) => ({
      accessKeyId,
      secretAccessKey,
      ...(sessionToken === undefined ? {} : { sessionToken }),
    }),
  };
}
