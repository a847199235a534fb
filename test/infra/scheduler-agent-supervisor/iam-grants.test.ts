/**
 * The stack grants what the app's own DynamoDB requests need, judged as AWS judges them: each
 * request the adapters build (their exported request builders) goes through the local runtime's
 * mapping of DynamoDB requests to IAM checks (dynamodb/iam-requests.ts) and its evaluator, against
 * the synthesized role's policies. Both grants below were wrong until IAM was enforced locally
 * (issue 20): the lean reservation's write names markStepRunning's attributes too, and the
 * supervisor reads a due record's versions with GetItem, which it was never granted.
 */
import { marshall } from '@aws-sdk/util-dynamodb';
import {
  refusalRead,
  withMarkRunning,
} from '../../../lambdas/scheduler-agent-supervisor/adapters/call-budget';
import { versionsRead } from '../../../lambdas/scheduler-agent-supervisor/adapters/state-store';
import { RESERVE_CALL, StateAttr } from '../../../lambdas/scheduler-agent-supervisor/contracts';
import { dynamoDbChecks } from '../../../lib/local-runtime/dynamodb/iam-requests';
import { type CompiledPolicy, evaluate, roleSessionPrincipal } from '../../../lib/local-runtime/iam';
import { INFRA_ACCOUNT, INFRA_REGION, rolePolicies, tableArnOf } from '../support/role-policies';
import { resourcesOf, synthesizeStack } from '../support/synth';

const { template } = synthesizeStack('local');
const stateTable = Object.entries(resourcesOf(template)).find(
  ([id, resource]) => resource.Type === 'AWS::DynamoDB::Table' && id.startsWith('StateStoreTable'),
)?.[0] as string;

/** Whether every IAM check of a low-level DynamoDB request is allowed to the role's session. */
function verdicts(operation: string, request: Record<string, unknown>, policies: CompiledPolicy[]) {
  const checks = dynamoDbChecks(operation, request, {
    region: INFRA_REGION,
    accountId: INFRA_ACCOUNT,
    tableOf: (name) =>
      name === stateTable
        ? { name, arn: tableArnOf(name), partitionKey: StateAttr.OrderId, indexPartitionKeys: {} }
        : undefined,
    streamOfIterator: () => undefined,
  });
  if (typeof checks === 'string') throw new Error(checks);
  const principal = roleSessionPrincipal(`arn:aws:iam::${INFRA_ACCOUNT}:role/r`, 'fn');
  return checks.map((check) => ({
    action: check.action,
    allowed: evaluate(
      { principal, action: check.action, resource: check.resource, context: check.context },
      { identity: policies },
      { region: INFRA_REGION, now: Date.now() },
    ).allowed,
  }));
}

/** A document-client input as the low-level request DynamoDB receives. */
function lowLevel(input: Record<string, unknown>): Record<string, unknown> {
  const { Key, ExpressionAttributeValues, ...rest } = input as {
    Key: Record<string, unknown>;
    ExpressionAttributeValues?: Record<string, unknown>;
  };
  return {
    ...rest,
    Key: marshall(Key),
    ...(ExpressionAttributeValues
      ? { ExpressionAttributeValues: marshall(ExpressionAttributeValues, { removeUndefinedValues: true }) }
      : {}),
  };
}

describe('the state store grants, evaluated as AWS evaluates them', () => {
  it('lets each agent make its lean reservation (markStepRunning in the same write) and read why one was refused', () => {
    for (const agent of [
      'ReserveInventoryAgentRole',
      'ChargePaymentAgentRole',
      'ScheduleShippingAgentRole',
    ]) {
      const policies = rolePolicies(template, agent);
      const reservation = withMarkRunning(
        {
          UpdateExpression: RESERVE_CALL.updateExpression,
          ConditionExpression: RESERVE_CALL.conditionExpression,
          ExpressionAttributeNames: {
            '#orderId': StateAttr.OrderId,
            '#calls': StateAttr.CallsMade,
            '#budget': StateAttr.RetryBudget,
            '#op': 'charge',
          },
          ExpressionAttributeValues: { ':one': 1, ':deploymentBudget': 36 },
        },
        'o-1',
        { instanceId: 'o-1--attempt-1', step: 'ChargePayment', completeBy: 1_700_000_000 },
        Date.now(),
      );
      const update = lowLevel({ TableName: stateTable, Key: { [StateAttr.OrderId]: 'o-1' }, ...reservation });
      expect({ agent, verdicts: verdicts('UpdateItem', update, policies) }).toEqual({
        agent,
        verdicts: [{ action: 'dynamodb:UpdateItem', allowed: true }],
      });
      const read = lowLevel({ ...refusalRead(stateTable, { orderId: 'o-1', operation: 'charge' }) });
      expect(verdicts('GetItem', read, policies)).toEqual([{ action: 'dynamodb:GetItem', allowed: true }]);
      // And the grant still refuses what an agent has no business doing: reading the whole record.
      expect(
        verdicts(
          'GetItem',
          lowLevel({ TableName: stateTable, Key: { [StateAttr.OrderId]: 'o-1' } }),
          policies,
        ),
      ).toEqual([{ action: 'dynamodb:GetItem', allowed: false }]);
    }
  });

  it("lets the supervisor read a due record's versions, and nothing else of the record", () => {
    const policies = rolePolicies(template, 'SupervisorRole');
    expect(verdicts('GetItem', lowLevel({ ...versionsRead(stateTable, 'o-1') }), policies)).toEqual([
      { action: 'dynamodb:GetItem', allowed: true },
    ]);
    expect(
      verdicts(
        'GetItem',
        lowLevel({
          TableName: stateTable,
          Key: { [StateAttr.OrderId]: 'o-1' },
          ProjectionExpression: 'LockedBy',
        }),
        policies,
      ),
    ).toEqual([{ action: 'dynamodb:GetItem', allowed: false }]);
  });
});
