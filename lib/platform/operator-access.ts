/**
 * What an operator is given to use a wing's operator routes: a customer managed policy allowing
 * `execute-api:Invoke` on those methods and nothing else (a `{id}` route's method ARN ends in `*`:
 * that method on that route, any id). The routes are AWS_IAM: without an identity policy like this
 * one, API Gateway answers every operator 403 "User: ... is not authorized to perform:
 * execute-api:Invoke" (https://docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-control-access-using-iam-policies-to-invoke-api.html).
 * An account attaches it to its operators' group, role or permission set; the local runtime to its
 * `operator` user (bin/app-local-users.ts). Named per stack and region (IAM names are account-wide,
 * a stack's name is only per region), so the same stack deploys to two regions of one account.
 * Beside it, a read-only policy (`<stack>-OperatorReadOnly-<region>`): the read methods (GET: list,
 * show) only, for operators who watch but may not retry or cancel; API Gateway refuses them the
 * POST routes with 403 naming execute-api:Invoke and the method.
 */
import { Aws, Stack, Validations } from 'aws-cdk-lib';
import type * as apigw from 'aws-cdk-lib/aws-apigateway';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import {
  operatorAccessPolicyName,
  operatorReadOnlyPolicyName,
} from '../../lambdas/shared/operator-access-policy-name';
import { nagResourceName } from './scoped-role';

export interface OperatorAccessProps {
  /** The AWS_IAM operator methods the policy lets its holder invoke (at least one). */
  readonly methods: readonly apigw.Method[];
  /** What the routes are for, in the policy's description, e.g. `the orders API's operator routes`. */
  readonly routesDescription: string;
}

export class OperatorAccess extends Construct {
  /** Every operator method: reads, retry and cancel. */
  readonly policy: iam.ManagedPolicy;
  /** The read (GET) methods only. */
  readonly readOnlyPolicy: iam.ManagedPolicy;

  constructor(scope: Construct, id: string, props: OperatorAccessProps) {
    super(scope, id);
    if (props.methods.length === 0) {
      throw new Error(`OperatorAccess ${this.node.path}: methods must name at least one operator method`);
    }
    const reads = props.methods.filter((method) => method.httpMethod === 'GET');
    if (reads.length === 0) {
      throw new Error(
        `OperatorAccess ${this.node.path}: methods must include a read (GET) method for the read-only policy`,
      );
    }
    const stack = Stack.of(this);
    this.policy = this.invokePolicy(
      'Policy',
      operatorAccessPolicyName(stack.stackName, Aws.REGION),
      `Lets an operator call ${props.routesDescription} (execute-api:Invoke on those methods only).`,
      props.methods,
    );
    this.readOnlyPolicy = this.invokePolicy(
      'ReadOnlyPolicy',
      operatorReadOnlyPolicyName(stack.stackName, Aws.REGION),
      `Lets a read-only operator call the read (GET) methods of ${props.routesDescription}, not retry or cancel.`,
      reads,
    );
  }

  private invokePolicy(
    id: string,
    name: string,
    description: string,
    methods: readonly apigw.Method[],
  ): iam.ManagedPolicy {
    const resources = methods.map((method) => method.methodArn);
    const policy = new iam.ManagedPolicy(this, id, {
      managedPolicyName: name,
      description,
      statements: [new iam.PolicyStatement({ actions: ['execute-api:Invoke'], resources })],
    });
    for (const arn of resources
      .map((resource) => nagResourceName(this, resource))
      .filter((r) => r.includes('*'))) {
      Validations.of(policy).acknowledge({
        id: `AwsSolutions-IAM5[Resource::${arn}]`,
        reason: `An operator route with an id path parameter (any id): that one method on that one route.`,
      });
    }
    return policy;
  }
}
