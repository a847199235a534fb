/**
 * Each wing ships its operators' OperatorAccess managed policy (lib/platform/operator-access.ts):
 * named `<stack>-OperatorAccess-<region>` (what the local runtime's operator user is given,
 * bin/app-local-users.ts), allowing execute-api:Invoke on exactly the wing's AWS_IAM operator methods,
 * attached to nobody (an account attaches it to its operators); and the read-only
 * `<stack>-OperatorReadOnly-<region>`, the GET methods only (the local `operator-readonly` user's).
 */
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as apigw from 'aws-cdk-lib/aws-apigateway';
import { appLocalUsers } from '../../../bin/app-local-users';
import { OperatorAccess } from '../../../lib/platform/operator-access';
import { testOutdir } from '../../support/cdk-outdir';
import { synthesizeDroneDelivery } from '../choreography/synth';
import { synthesizeStack } from '../support/synth';

function operatorAccessOf(
  template: Template,
  stack: Stack,
  methods: readonly apigw.Method[],
  kind = 'OperatorAccess',
) {
  const policies = Object.values(template.findResources('AWS::IAM::ManagedPolicy')).filter((policy) =>
    JSON.stringify(policy.Properties.ManagedPolicyName).includes(`-${kind}-`),
  );
  expect(policies).toHaveLength(1);
  const policy = policies[0]?.Properties;
  expect(policy.ManagedPolicyName).toEqual({
    'Fn::Join': ['', [`${stack.stackName}-${kind}-`, { Ref: 'AWS::Region' }]],
  });
  expect(policy.Roles ?? policy.Users ?? policy.Groups).toBeUndefined();
  expect(policy.PolicyDocument.Statement).toEqual([
    {
      Action: 'execute-api:Invoke',
      Effect: 'Allow',
      Resource: methods.map((method) => stack.resolve(method.methodArn)),
    },
  ]);
  return policy;
}

describe('OperatorAccess', () => {
  it('SchedulerAgentSupervisor: execute-api:Invoke on the five operator methods', () => {
    const { stack, template } = synthesizeStack('local');
    expect(stack.operatorApi.methods).toHaveLength(5);
    operatorAccessOf(template, stack, stack.operatorApi.methods);
  });

  it('SchedulerAgentSupervisor: a read-only policy with the three read methods (list, show, workflow), not retry or cancel', () => {
    const { stack, template } = synthesizeStack('local');
    const reads = stack.operatorApi.methods.filter((method) => method.httpMethod === 'GET');
    expect(reads.map((method) => method.resource.path).sort()).toEqual([
      '/operator/orders',
      '/operator/orders/{orderId}',
      '/operator/orders/{orderId}/workflow',
    ]);
    operatorAccessOf(template, stack, reads, 'OperatorReadOnly');
  });

  it('DroneDelivery: execute-api:Invoke on the two operator methods', () => {
    const { stack, template } = synthesizeDroneDelivery();
    const methods = stack.api.operator.methods;
    expect(methods).toHaveLength(2);
    operatorAccessOf(template, stack, methods);
    // Both of its routes read: the read-only policy holds both.
    operatorAccessOf(template, stack, methods, 'OperatorReadOnly');
  });

  it('names the policies the local operator user is given', () => {
    expect(appLocalUsers('eu-west-1')).toEqual({
      operator: {
        managedPolicyNames: [
          'SchedulerAgentSupervisor-OperatorAccess-eu-west-1',
          'DroneDelivery-OperatorAccess-eu-west-1',
        ],
      },
      'operator-readonly': {
        managedPolicyNames: [
          'SchedulerAgentSupervisor-OperatorReadOnly-eu-west-1',
          'DroneDelivery-OperatorReadOnly-eu-west-1',
        ],
      },
    });
    expect(appLocalUsers('us-east-1', ['DroneDelivery', 'Other'])).toEqual({
      operator: { managedPolicyNames: ['DroneDelivery-OperatorAccess-us-east-1'] },
      'operator-readonly': { managedPolicyNames: ['DroneDelivery-OperatorReadOnly-us-east-1'] },
    });
  });

  it('refuses to be made for no method', () => {
    const stack = new Stack(new App({ outdir: testOutdir() }), 'Empty');
    expect(() => new OperatorAccess(stack, 'Access', { methods: [], routesDescription: 'nothing' })).toThrow(
      'OperatorAccess Empty/Access: methods must name at least one operator method',
    );
  });

  it('refuses to be made without a read (GET) method for the read-only policy', () => {
    const stack = new Stack(new App({ outdir: testOutdir() }), 'Writes');
    const api = new apigw.RestApi(stack, 'Api');
    const post = api.root.addResource('act').addMethod('POST', new apigw.MockIntegration());
    expect(
      () => new OperatorAccess(stack, 'Access', { methods: [post], routesDescription: 'writes' }),
    ).toThrow(
      'OperatorAccess Writes/Access: methods must include a read (GET) method for the read-only policy',
    );
  });
});
