import { Stack } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import {
  ALERT_EVENT_SOURCE,
  AlertType,
  EnvKey,
  STATE_INDEX,
} from '../../../lambdas/scheduler-agent-supervisor/contracts';
import {
  actionsOf,
  DEMO_CONTEXT,
  functionIdByService,
  type PolicyStatement,
  resourcesOf,
  type SynthesizedStack,
  statementsOfFunction,
  synthesizeStack,
} from '../support/synth';

const logicalId = (construct: IConstruct) =>
  Stack.of(construct).getLogicalId(construct.node.defaultChild as never) as string;

/** The path of each method of the REST API, from its resources. */
function methodPaths(template: Template): Array<{ path: string; method: Record<string, unknown> }> {
  const resources = resourcesOf(template);
  const pathOf = (id: unknown): string => {
    if (typeof id !== 'object' || id === null || !('Ref' in id)) return '';
    const resource = resources[(id as { Ref: string }).Ref];
    if (resource?.Type !== 'AWS::ApiGateway::Resource') return '';
    return `${pathOf(resource.Properties?.ParentId)}/${String(resource.Properties?.PathPart)}`;
  };
  return Object.values(template.findResources('AWS::ApiGateway::Method')).map((method) => ({
    path: `${method.Properties.HttpMethod} ${pathOf(method.Properties.ResourceId)}`,
    method: method.Properties,
  }));
}

/** Every action a function may take, with the resources, as `action -> resources (JSON)`. */
function grants(statements: PolicyStatement[]): Record<string, string[]> {
  const byAction: Record<string, string[]> = {};
  for (const statement of statements) {
    for (const action of actionsOf(statement)) {
      const resources = Array.isArray(statement.Resource) ? statement.Resource : [statement.Resource];
      byAction[action] = [...(byAction[action] ?? []), ...resources.map((r) => JSON.stringify(r))];
    }
  }
  return byAction;
}

describe('operator API (default profile, demo)', () => {
  let synth: SynthesizedStack;
  let template: Template;
  beforeAll(() => {
    synth = synthesizeStack('default', { context: DEMO_CONTEXT });
    template = synth.template;
  });

  it('adds the operator routes to the submission REST API, each authorised by IAM without an API key', () => {
    const operator = methodPaths(template).filter(({ path }) => path.includes('/operator'));
    expect(operator.map(({ path }) => path).sort()).toEqual([
      'GET /operator/orders',
      'GET /operator/orders/{orderId}',
      'GET /operator/orders/{orderId}/workflow',
      'POST /operator/orders/{orderId}/cancel',
      'POST /operator/orders/{orderId}/retry',
    ]);
    for (const { method } of operator) {
      expect(method).toMatchObject({
        AuthorizationType: 'AWS_IAM',
        ApiKeyRequired: false,
        RestApiId: { Ref: logicalId(synth.stack.submission.api) },
      });
    }
    // The client routes keep the API key and no IAM.
    for (const { method } of methodPaths(template).filter(({ path }) => !path.includes('/operator'))) {
      expect(method).toMatchObject({ ApiKeyRequired: true });
      expect(method.AuthorizationType).not.toBe('AWS_IAM');
    }
  });

  it('lists with Query on StateIndex only', () => {
    const statements = statementsOfFunction(template, functionIdByService(template, 'operator-list'));
    const dynamo = grants(statements);
    expect(Object.keys(dynamo).filter((action) => action.startsWith('dynamodb:'))).toEqual([
      'dynamodb:Query',
    ]);
    expect(dynamo['dynamodb:Query']).toHaveLength(1);
    expect(dynamo['dynamodb:Query']?.[0]).toContain(`/index/${STATE_INDEX.name}`);
    expect(dynamo['dynamodb:Query']?.[0]).not.toContain('*');
  });

  it('inspects with GetItem on the state table, Query on the alert archive, DescribeExecution and GetExecutionHistory of the scheduler executions', () => {
    const statements = statementsOfFunction(template, functionIdByService(template, 'operator-inspect'));
    const byAction = grants(statements);
    const table = (construct: IConstruct) => JSON.stringify({ 'Fn::GetAtt': [logicalId(construct), 'Arn'] });
    expect(byAction['dynamodb:GetItem']).toEqual([table(synth.stack.stateStore.table)]);
    expect(byAction['dynamodb:Query']).toEqual([table(synth.stack.operatorApi.alertArchive.table)]);
    // The executions of each live version's state machine (by default v1 and v3).
    expect(byAction['states:DescribeExecution']).toHaveLength(synth.stack.workflows.size);
    for (const resource of byAction['states:DescribeExecution'] ?? [])
      expect(resource).toMatch(/:execution:.*:\*"/);
    // The history of the same executions only (each attempt's step runs), not of every state machine.
    expect(byAction['states:GetExecutionHistory']).toEqual(byAction['states:DescribeExecution']);
    expect(
      Object.keys(byAction)
        .filter((action) => /^(dynamodb|states|sqs):/.test(action))
        .sort(),
    ).toEqual([
      'dynamodb:GetItem',
      'dynamodb:Query',
      'states:DescribeExecution',
      'states:GetExecutionHistory',
    ]);
  });

  it("reads an order's workflow with GetItem on the state table and DescribeExecution, DescribeStateMachineForExecution and GetExecutionHistory of the scheduler executions, nothing else", () => {
    const statements = statementsOfFunction(template, functionIdByService(template, 'operator-workflow'));
    const byAction = grants(statements);
    const table = JSON.stringify({ 'Fn::GetAtt': [logicalId(synth.stack.stateStore.table), 'Arn'] });
    expect(byAction['dynamodb:GetItem']).toEqual([table]);
    // The executions of each live version's state machine, and nothing of the state machines themselves.
    expect(byAction['states:DescribeStateMachineForExecution']).toHaveLength(synth.stack.workflows.size);
    for (const resource of byAction['states:DescribeStateMachineForExecution'] ?? [])
      expect(resource).toMatch(/:execution:.*:\*"/);
    expect(byAction['states:GetExecutionHistory']).toEqual(
      byAction['states:DescribeStateMachineForExecution'],
    );
    expect(byAction['states:DescribeExecution']).toEqual(byAction['states:DescribeStateMachineForExecution']);
    expect(
      Object.keys(byAction)
        .filter((action) => /^(dynamodb|states|sqs):/.test(action))
        .sort(),
    ).toEqual([
      'dynamodb:GetItem',
      'states:DescribeExecution',
      'states:DescribeStateMachineForExecution',
      'states:GetExecutionHistory',
    ]);
  });

  it('acts with GetItem and UpdateItem on the state table, UpdateItem (a retry takes a slot) and GetItem (the drain) on the admission table, SendMessage to the start queue, nothing else', () => {
    const statements = statementsOfFunction(template, functionIdByService(template, 'operator-action'));
    const byAction = grants(statements);
    const arnOf = (construct: IConstruct) => JSON.stringify({ 'Fn::GetAtt': [logicalId(construct), 'Arn'] });
    const stateTable = arnOf(synth.stack.stateStore.table);
    const admissionTable = arnOf(synth.stack.admissionStore.table);
    expect(byAction['dynamodb:GetItem']?.sort()).toEqual([stateTable, admissionTable].sort());
    expect(byAction['dynamodb:UpdateItem']?.sort()).toEqual([stateTable, admissionTable].sort());
    expect(byAction['sqs:SendMessage']).toEqual([
      JSON.stringify({ 'Fn::GetAtt': [logicalId(synth.stack.starter.startQueue as never), 'Arn'] }),
    ]);
    expect(
      Object.keys(byAction)
        .filter((action) => /^(dynamodb|states):/.test(action))
        .sort(),
    ).toEqual(['dynamodb:GetItem', 'dynamodb:UpdateItem']);
    const env = resourcesOf(template)[functionIdByService(template, 'operator-action')]?.Properties
      ?.Environment as { Variables: Record<string, unknown> };
    expect(Object.keys(env.Variables)).toEqual(
      expect.arrayContaining([
        EnvKey.StateTableName,
        EnvKey.StartQueueUrl,
        EnvKey.WorkflowTimings,
        EnvKey.DueShardCount,
        EnvKey.AdmissionTableName,
        EnvKey.AdmissionSettings,
      ]),
    );
    // The retry takes its slot under the very settings the submission admits with.
    const submit = resourcesOf(template)[functionIdByService(template, 'submit-order')]?.Properties
      ?.Environment as { Variables: Record<string, unknown> };
    expect(env.Variables[EnvKey.AdmissionSettings]).toEqual(submit.Variables[EnvKey.AdmissionSettings]);
    expect(env.Variables[EnvKey.AdmissionTableName]).toEqual({
      Ref: logicalId(synth.stack.admissionStore.table),
    });
  });

  it('archives every order alert: a rule on the alert bus targets the archiver, which may only PutItem', () => {
    const archiver = functionIdByService(template, 'alert-archiver');
    const rules = Object.values(template.findResources('AWS::Events::Rule')).filter((rule) =>
      (rule.Properties.Targets as Array<{ Arn: unknown }>).some(
        (target) => JSON.stringify(target.Arn) === JSON.stringify({ 'Fn::GetAtt': [archiver, 'Arn'] }),
      ),
    );
    expect(rules).toHaveLength(1);
    expect(rules[0]?.Properties).toMatchObject({
      EventBusName: { Ref: logicalId(synth.stack.alerts.bus) },
      EventPattern: { source: [ALERT_EVENT_SOURCE], 'detail-type': Object.values(AlertType) },
    });
    const byAction = grants(statementsOfFunction(template, archiver));
    expect(Object.keys(byAction).filter((action) => action.startsWith('dynamodb:'))).toEqual([
      'dynamodb:PutItem',
    ]);
    expect(byAction['dynamodb:PutItem']).toEqual([
      JSON.stringify({ 'Fn::GetAtt': [logicalId(synth.stack.operatorApi.alertArchive.table), 'Arn'] }),
    ]);
  });

  it('keys the alert archive by order and `<time>#<event id>`', () => {
    expect(
      resourcesOf(template)[logicalId(synth.stack.operatorApi.alertArchive.table)]?.Properties,
    ).toMatchObject({
      KeySchema: [
        { AttributeName: 'OrderID', KeyType: 'HASH' },
        { AttributeName: 'AlertKey', KeyType: 'RANGE' },
      ],
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
    });
  });
});
