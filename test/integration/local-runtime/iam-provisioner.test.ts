/**
 * The local account read from a template (provisioners/iam.ts): roles with their trust policies,
 * inline, attached and managed policies, KMS keys, the composition's users; and the start refused,
 * naming the resource and the problem, for what the evaluator cannot evaluate faithfully (an unknown
 * condition key, an AWS managed policy with no local copy, a permissions boundary) or what AWS
 * itself refuses (a function whose role Lambda cannot assume). Templates are written with L1
 * constructs (no assets), so each start takes a second.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { startLocalRuntime } from '../../../lib/local-runtime';

const STACK = 'IamFixture';
let workDir: string;

beforeAll(() => {
  workDir = mkdtempSync(join(tmpdir(), 'iam-provisioner-it-'));
});
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

const TRUST_LAMBDA = {
  Version: '2012-10-17',
  Statement: [{ Effect: 'Allow', Principal: { Service: 'lambda.amazonaws.com' }, Action: 'sts:AssumeRole' }],
};

/** A template built by `build`, synthesized into a fresh assembly directory. */
function assemblyOf(name: string, build: (stack: Stack) => void): string {
  const outdir = join(workDir, name);
  const app = new App({ outdir });
  build(new Stack(app, STACK));
  app.synth();
  return outdir;
}

async function startOn(assemblyDir: string, users?: Record<string, { managedPolicyNames: string[] }>) {
  return startLocalRuntime({
    assemblyDir,
    port: 0,
    targetFile: null,
    log: () => undefined,
    ...(users ? { users } : {}),
  });
}

describe('the local account read from the templates', () => {
  it('holds each role and user with its inline, attached and managed policies', async () => {
    const assembly = assemblyOf('good', (stack) => {
      const role = new iam.CfnRole(stack, 'Worker', {
        assumeRolePolicyDocument: TRUST_LAMBDA,
        policies: [
          {
            policyName: 'inline',
            policyDocument: {
              Version: '2012-10-17',
              Statement: [{ Effect: 'Allow', Action: 'sqs:SendMessage', Resource: '*' }],
            },
          },
        ],
      });
      new iam.CfnPolicy(stack, 'Attached', {
        policyName: 'attached',
        roles: [role.ref],
        policyDocument: {
          Version: '2012-10-17',
          Statement: [{ Effect: 'Allow', Action: 'dynamodb:GetItem', Resource: '*' }],
        },
      });
      new iam.CfnManagedPolicy(stack, 'OperatorAccess', {
        managedPolicyName: 'Fixture-OperatorAccess',
        policyDocument: {
          Version: '2012-10-17',
          Statement: [{ Effect: 'Allow', Action: 'execute-api:Invoke', Resource: '*' }],
        },
      });
      new kms.CfnKey(stack, 'Key', {
        keyPolicy: {
          Version: '2012-10-17',
          Statement: [
            {
              Effect: 'Allow',
              Principal: { AWS: `arn:aws:iam::${stack.account}:root` },
              Action: 'kms:*',
              Resource: '*',
            },
          ],
        },
      });
    });
    const runtime = await startOn(assembly, { operator: { managedPolicyNames: ['Fixture-OperatorAccess'] } });
    try {
      const { grants } = runtime.iamUsage();
      const worker = Object.entries(grants).find(([arn]) => arn.includes(':role/IamFixture-Worker'));
      expect(worker?.[1].flatMap((statement) => statement.actions).sort()).toEqual([
        'dynamodb:GetItem',
        'sqs:SendMessage',
      ]);
      expect(
        grants['arn:aws:iam::000000000000:user/operator']?.flatMap((statement) => statement.actions),
      ).toEqual(['execute-api:Invoke']);
    } finally {
      await runtime.stop();
    }
  });
});

describe('what the local start refuses, naming the resource', () => {
  it('a condition key the evaluator does not set', async () => {
    const assembly = assemblyOf('unknown-key', (stack) => {
      new iam.CfnRole(stack, 'Fenced', {
        assumeRolePolicyDocument: TRUST_LAMBDA,
        policies: [
          {
            policyName: 'byIp',
            policyDocument: {
              Version: '2012-10-17',
              Statement: [
                {
                  Effect: 'Allow',
                  Action: 's3:GetObject',
                  Resource: '*',
                  Condition: { IpAddress: { 'aws:SourceIp': '10.0.0.0/8' } },
                },
              ],
            },
          },
        ],
      });
    });
    await expect(startOn(assembly)).rejects.toThrow(
      /IamFixture\/Fenced inline byIp: .*condition key aws:SourceIp/,
    );
  });

  it('an AWS managed policy the local account has no copy of', async () => {
    const assembly = assemblyOf('unknown-managed', (stack) => {
      new iam.CfnRole(stack, 'Admin', {
        assumeRolePolicyDocument: TRUST_LAMBDA,
        managedPolicyArns: ['arn:aws:iam::aws:policy/AdministratorAccess'],
      });
    });
    await expect(startOn(assembly)).rejects.toThrow(
      /IamFixture\/Admin: managed policy arn:aws:iam::aws:policy\/AdministratorAccess is neither in the templates nor in the local copy/,
    );
  });

  it('a role with a permissions boundary', async () => {
    const assembly = assemblyOf('boundary', (stack) => {
      new iam.CfnRole(stack, 'Bounded', {
        assumeRolePolicyDocument: TRUST_LAMBDA,
        permissionsBoundary: 'arn:aws:iam::000000000000:policy/Boundary',
      });
    });
    await expect(startOn(assembly)).rejects.toThrow(
      /IamFixture\/Bounded: PermissionsBoundary is not evaluated/,
    );
  });

  it('a function whose role does not trust Lambda, as CreateFunction refuses it', async () => {
    const assembly = assemblyOf('untrusted', (stack) => {
      const role = new iam.CfnRole(stack, 'ForStates', {
        assumeRolePolicyDocument: {
          Version: '2012-10-17',
          Statement: [
            { Effect: 'Allow', Principal: { Service: 'states.amazonaws.com' }, Action: 'sts:AssumeRole' },
          ],
        },
      });
      new lambda.CfnFunction(stack, 'Fn', {
        runtime: 'nodejs22.x',
        handler: 'index.handler',
        role: role.attrArn,
        code: { zipFile: 'exports.handler = async () => ({});' },
      });
    });
    await expect(startOn(assembly)).rejects.toThrow(
      /IamFixture\/Fn: InvalidParameterValueException: The role defined for the function cannot be assumed by Lambda .*does not trust lambda.amazonaws.com/,
    );
  });

  it('a state machine whose role does not trust Step Functions, as CreateStateMachine refuses it', async () => {
    const assembly = assemblyOf('untrusted-states', (stack) => {
      const role = new iam.CfnRole(stack, 'ForLambda', { assumeRolePolicyDocument: TRUST_LAMBDA });
      new sfn.CfnStateMachine(stack, 'Machine', {
        roleArn: role.attrArn,
        definitionString: JSON.stringify({ StartAt: 'Done', States: { Done: { Type: 'Succeed' } } }),
      });
    });
    await expect(startOn(assembly)).rejects.toThrow(
      /IamFixture\/Machine: AccessDeniedException: Neither the global service principal states.amazonaws.com, nor the regional one is authorized to assume the provided role/,
    );
  });

  it('a user of the composition given a managed policy the templates do not name', async () => {
    const assembly = assemblyOf('no-such-policy', (stack) => {
      new iam.CfnRole(stack, 'Plain', { assumeRolePolicyDocument: TRUST_LAMBDA });
    });
    await expect(startOn(assembly, { operator: { managedPolicyNames: ['Nope'] } })).rejects.toThrow(
      'options.users: user operator: no AWS::IAM::ManagedPolicy is named Nope',
    );
  });
});
