import { type CfnElement, Stack } from 'aws-cdk-lib';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { FakesEnvKey } from '../../../lambdas/fakes/contracts';
import {
  ALERT_EVENT_SOURCE,
  ALERT_OUTBOX_INDEX,
  DEFAULT_WORKFLOW_VERSION,
  DUE_INDEX,
  EnvKey,
  STATE_INDEX,
  workflowSteps,
} from '../../../lambdas/scheduler-agent-supervisor/contracts';
import { DEFAULT_SLOW_MILLIS, FAKE_SERVICE_RESERVED_CONCURRENCY } from '../../../lib/fakes/remote-services';
import type { FakeDownstream } from '../../../lib/scheduler-agent-supervisor/downstream';
import {
  CONSOLE_OUTPUTS,
  FAKE_SERVICE_OUTPUTS,
  StackOutput,
} from '../../../lib/scheduler-agent-supervisor/stack';
import {
  actionsOf,
  DEMO_CONTEXT,
  ENDPOINTS_CONTEXT,
  environmentOf,
  functionIdByService,
  IAM_ENDPOINTS_CONTEXT,
  resourcesOf,
  type SynthesizedStack,
  statementsOfFunction,
  statementsWithAction,
  synthesizeStack,
} from '../support/synth';

/** The steps of an order on the default workflow version (what these tests deploy). */
const V1_STEPS = workflowSteps(DEFAULT_WORKFLOW_VERSION);

const logicalId = (construct: IConstruct): string =>
  Stack.of(construct).resolve((construct.node.defaultChild as CfnElement).logicalId) as string;

function fakesOf(synth: SynthesizedStack): FakeDownstream {
  if (!synth.stack.remoteServices) throw new Error('This deployment runs no fake services');
  return synth.stack.remoteServices;
}

/** Every output of the stack without the console (`-c console=true` adds CONSOLE_OUTPUTS; operator-console.test.ts). */
const outputsWithoutConsole = () =>
  Object.values(StackOutput)
    .filter((name) => !CONSOLE_OUTPUTS.includes(name))
    .sort();

describe('SchedulerAgentSupervisor stack (default profile, demo: fake services)', () => {
  let synth: SynthesizedStack;
  let template: Template;
  beforeAll(() => {
    synth = synthesizeStack('default', { context: DEMO_CONTEXT });
    template = synth.template;
  });

  describe('state store', () => {
    it('keys records by OrderID and holds the sparse sharded DueIndex (DueShard S, CompleteBy N)', () => {
      const table = resourcesOf(template)[logicalId(synth.stack.stateStore.table)];
      expect(table?.Properties).toMatchObject({
        KeySchema: [{ AttributeName: 'OrderID', KeyType: 'HASH' }],
        GlobalSecondaryIndexes: expect.arrayContaining([
          {
            IndexName: DUE_INDEX.name,
            KeySchema: [
              { AttributeName: DUE_INDEX.partitionKey, KeyType: 'HASH' },
              { AttributeName: DUE_INDEX.sortKey, KeyType: 'RANGE' },
            ],
            Projection: {
              ProjectionType: 'INCLUDE',
              NonKeyAttributes: [
                'ProcessState',
                'LockedBy',
                'FailureCount',
                'Attempt',
                'RunningStep',
                'CompensationFailureCount',
              ],
            },
          },
          {
            IndexName: STATE_INDEX.name,
            KeySchema: [
              { AttributeName: STATE_INDEX.partitionKey, KeyType: 'HASH' },
              { AttributeName: STATE_INDEX.sortKey, KeyType: 'RANGE' },
            ],
            Projection: {
              ProjectionType: 'INCLUDE',
              NonKeyAttributes: [...STATE_INDEX.projectedAttributes],
            },
          },
        ]),
      });
      expect(table?.Properties?.AttributeDefinitions).toEqual(
        expect.arrayContaining([
          { AttributeName: 'OrderID', AttributeType: 'S' },
          { AttributeName: 'DueShard', AttributeType: 'S' },
          { AttributeName: 'CompleteBy', AttributeType: 'N' },
        ]),
      );
    });

    it.each([
      ['state store', (s: SynthesizedStack) => s.stack.stateStore.table, 'OrderID'],
      ['orders table', (s: SynthesizedStack) => s.stack.ordersDatabase.table, 'OrderID'],
      ['idempotency table', (s: SynthesizedStack) => s.stack.idempotencyStore.table, 'id'],
      ['ledger table', (s: SynthesizedStack) => fakesOf(s).ledgerTable, 'Pk'],
    ])('%s: on-demand, encrypted, point-in-time recovery, generated name, retained', (_name, pick, key) => {
      const table = resourcesOf(template)[logicalId(pick(synth))];
      expect(table?.Properties).toMatchObject({
        KeySchema: [{ AttributeName: key, KeyType: 'HASH' }],
        BillingMode: 'PAY_PER_REQUEST',
        SSESpecification: { SSEEnabled: true },
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      });
      expect(table?.Properties?.TableName).toBeUndefined();
      expect(table?.DeletionPolicy).toBe('Retain');
    });

    it('the orders table is a separate table with no index', () => {
      const orders = resourcesOf(template)[logicalId(synth.stack.ordersDatabase.table)];
      expect(logicalId(synth.stack.ordersDatabase.table)).not.toBe(logicalId(synth.stack.stateStore.table));
      expect(orders?.Properties?.GlobalSecondaryIndexes).toBeUndefined();
    });

    it('idempotency records expire through the Powertools TTL attribute', () => {
      const table = resourcesOf(template)[logicalId(synth.stack.idempotencyStore.table)];
      expect(table?.Properties?.TimeToLiveSpecification).toEqual({
        AttributeName: 'expiration',
        Enabled: true,
      });
    });
  });

  describe('functions', () => {
    it('every function: Node.js 22 on arm64, active tracing, its own log group, source maps, Powertools env', () => {
      const functions = Object.values(template.findResources('AWS::Lambda::Function'));
      // 6 order functions (remote service, starter, supervisor, submit, get, status notifier),
      // 2 admission ones (release, reconciler), 5 operator ones (list, inspect, workflow, act,
      // alert archiver), one agent per step.
      expect(functions).toHaveLength(13 + V1_STEPS.length);
      for (const fn of functions) {
        expect(fn.Properties).toMatchObject({
          Runtime: 'nodejs22.x',
          Architectures: ['arm64'],
          TracingConfig: { Mode: 'Active' },
          LoggingConfig: { LogGroup: { Ref: expect.any(String) } },
          Environment: {
            Variables: expect.objectContaining({
              NODE_OPTIONS: '--enable-source-maps',
              POWERTOOLS_SERVICE_NAME: expect.any(String),
            }),
          },
        });
      }
      // The wing's functions count into its namespace; the fake downstream into its own.
      const namespaces = functions.map((fn) => ({
        service: fn.Properties.Environment.Variables.POWERTOOLS_SERVICE_NAME,
        namespace: fn.Properties.Environment.Variables.POWERTOOLS_METRICS_NAMESPACE,
      }));
      for (const { service, namespace } of namespaces) {
        expect(namespace).toBe(
          service === 'remote-service' ? 'FakeRemoteServices' : 'SchedulerAgentSupervisor',
        );
      }
    });

    it('every log group has the profile retention (30 days)', () => {
      const groups = Object.values(template.findResources('AWS::Logs::LogGroup'));
      expect(groups.length).toBeGreaterThanOrEqual(10);
      for (const group of groups) expect(group.Properties.RetentionInDays).toBe(30);
    });

    it.each([
      [
        'submit-order',
        [
          EnvKey.StateTableName,
          EnvKey.OrdersTableName,
          EnvKey.StartQueueUrl,
          EnvKey.ConflictQueueUrl,
          EnvKey.WorkflowTimings,
          EnvKey.DueShardCount,
          EnvKey.ClientRegistry,
          EnvKey.AdmissionTableName,
          EnvKey.AdmissionSettings,
          EnvKey.RetryBudget,
          EnvKey.CurrentWorkflowVersion,
        ],
      ],
      ['get-order', [EnvKey.StateTableName, EnvKey.ClientRegistry]],
      // Also the alert outbox relay: the bus, and the table whose delivered entries it removes.
      ['status-notifier', [EnvKey.ClientRegistry, EnvKey.AlertBusName, EnvKey.StateTableName]],
      // The orders table: a lean version's execution gets the order in its input.
      [
        'start-order',
        [EnvKey.StateTableName, EnvKey.OrdersTableName, EnvKey.WorkflowStateMachines, EnvKey.WorkflowTimings],
      ],
      [
        'supervisor',
        [
          EnvKey.StateTableName,
          EnvKey.StartQueueUrl,
          EnvKey.AlertBusName,
          EnvKey.WorkflowTimings,
          EnvKey.DueShardCount,
          EnvKey.WorkflowStateMachines,
        ],
      ],
      ['remote-service', [FakesEnvKey.LedgerTableName, FakesEnvKey.StallMillis, FakesEnvKey.SlowMillis]],
      ...V1_STEPS.map(
        (step) =>
          [
            `agent-${step.service}`,
            [
              EnvKey.StepName,
              EnvKey.RemoteEndpointUrl,
              EnvKey.RemoteAuth,
              EnvKey.IdempotencyTableName,
              EnvKey.WorkflowTimings,
              EnvKey.StateTableName,
              EnvKey.RetryBudget,
            ],
          ] as [string, string[]],
      ),
    ])('%s gets exactly its environment', (service, keys) => {
      const variables = environmentOf(template, service);
      const own = Object.keys(variables).filter(
        (key) => !['NODE_OPTIONS', 'POWERTOOLS_SERVICE_NAME', 'POWERTOOLS_METRICS_NAMESPACE'].includes(key),
      );
      expect(own.sort()).toEqual([...keys].sort());
      if (keys.includes(EnvKey.WorkflowTimings)) {
        expect(JSON.parse(variables[EnvKey.WorkflowTimings] as string)).toEqual(synth.config.timings);
      }
      if (keys.includes(EnvKey.DueShardCount)) expect(variables[EnvKey.DueShardCount]).toBe('8');
      if (keys.includes(EnvKey.RetryBudget)) {
        expect(variables[EnvKey.RetryBudget]).toBe(String(synth.config.retryBudget.callsPerOperation));
      }
    });

    it('each agent serves its own step and signs its calls to the remote service URL (no trailing slash)', () => {
      for (const step of V1_STEPS) {
        const variables = environmentOf(template, `agent-${step.service}`);
        expect(variables[EnvKey.StepName]).toBe(step.name);
        expect(variables[EnvKey.RemoteAuth]).toBe('iam');
        // https: + '//' + host, selected from the function URL split on '/'.
        expect(JSON.stringify(variables[EnvKey.RemoteEndpointUrl])).toContain('"//"');
        expect(JSON.stringify(variables[EnvKey.RemoteEndpointUrl])).toContain('FunctionUrl');
      }
    });

    it('agent timeout is the step timeout plus a margin', () => {
      for (const step of V1_STEPS) {
        const fn = resourcesOf(template)[functionIdByService(template, `agent-${step.service}`)];
        expect(fn?.Properties?.Timeout).toBe(synth.config.timings.stepTimeoutSeconds + 10);
      }
    });

    it('the fake remote service runs with its small reserved concurrency (what an API key holder can tie up)', () => {
      const fn = resourcesOf(template)[functionIdByService(template, 'remote-service')];
      expect(fn?.Properties?.ReservedConcurrentExecutions).toBe(FAKE_SERVICE_RESERVED_CONCURRENCY);
      expect(FAKE_SERVICE_RESERVED_CONCURRENCY).toBeLessThanOrEqual(5);
    });

    it('the remote service outlives its stall and its slowness (STALL_MILLIS + SLOW_MILLIS) and sits behind an IAM-authenticated function URL', () => {
      const id = functionIdByService(template, 'remote-service');
      const fn = resourcesOf(template)[id];
      expect(fn?.Properties?.Timeout).toBeGreaterThan(
        (synth.config.remoteStallMillis + DEFAULT_SLOW_MILLIS) / 1000,
      );
      expect(environmentOf(template, 'remote-service')[FakesEnvKey.SlowMillis]).toBe(
        String(DEFAULT_SLOW_MILLIS),
      );
      template.hasResourceProperties('AWS::Lambda::Url', {
        AuthType: 'AWS_IAM',
        TargetFunctionArn: { 'Fn::GetAtt': [id, 'Arn'] },
      });
    });
  });

  describe('supervisor', () => {
    it('runs alone (reserved concurrency 1) on the configured rate, with no retries of a missed run', () => {
      const id = functionIdByService(template, 'supervisor');
      const fn = resourcesOf(template)[id];
      expect(fn?.Properties?.ReservedConcurrentExecutions).toBe(1);
      expect(fn?.Properties?.Timeout).toBeGreaterThanOrEqual(synth.config.timings.supervisorRateSeconds);
      template.hasResourceProperties('AWS::Events::Rule', {
        ScheduleExpression: 'rate(1 minute)',
        Targets: [
          Match.objectLike({ Arn: { 'Fn::GetAtt': [id, 'Arn'] }, RetryPolicy: { MaximumRetryAttempts: 0 } }),
        ],
      });
      template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
        FunctionName: { Ref: id },
        MaximumRetryAttempts: 0,
      });
    });

    it('may Query DueIndex, StateIndex (its gauges) and AlertOutboxIndex only (never Scan), and update records', () => {
      const statements = statementsOfFunction(template, functionIdByService(template, 'supervisor'));
      const query = statementsWithAction(statements, 'dynamodb:Query');
      expect(query).toHaveLength(3);
      expect(JSON.stringify(query[0]?.Resource)).toContain(`/index/${DUE_INDEX.name}`);
      expect(JSON.stringify(query[1]?.Resource)).toContain(`/index/${STATE_INDEX.name}`);
      expect(JSON.stringify(query[2]?.Resource)).toContain(`/index/${ALERT_OUTBOX_INDEX.name}`);
      for (const statement of query) expect(JSON.stringify(statement.Resource)).not.toContain('*');
      const updates = statementsWithAction(statements, 'dynamodb:UpdateItem');
      expect(updates.map((s) => s.Resource)).toEqual([
        { 'Fn::GetAtt': [logicalId(synth.stack.stateStore.table), 'Arn'] },
      ]);
    });

    it('no principal in the stack may Scan any table', () => {
      const policies = Object.values(template.findResources('AWS::IAM::Policy'));
      const actions = policies.flatMap((policy) =>
        (policy.Properties.PolicyDocument.Statement as { Action: string | string[] }[]).flatMap((statement) =>
          actionsOf({ Effect: 'Allow', Resource: '', Action: statement.Action }),
        ),
      );
      expect(actions.filter((action) => /^dynamodb:(Scan|\*)$/.test(action))).toEqual([]);
    });
  });

  describe('queues', () => {
    const queueProps = (construct: IConstruct) => resourcesOf(template)[logicalId(construct)]?.Properties;

    it('each agent request queue: small redrive to its DLQ, visibility 6x the agent timeout', () => {
      for (const worker of synth.stack.agents) {
        expect(queueProps(worker.requests.queue)).toMatchObject({
          VisibilityTimeout: 6 * (synth.config.timings.stepTimeoutSeconds + 10),
          RedrivePolicy: {
            deadLetterTargetArn: { 'Fn::GetAtt': [logicalId(worker.requests.deadLetterQueue), 'Arn'] },
            maxReceiveCount: 3,
          },
        });
      }
    });

    it('the start queue: redrive to its DLQ, visibility 6x the starter timeout', () => {
      expect(queueProps(synth.stack.starter.startRequests.queue)).toMatchObject({
        VisibilityTimeout: 180,
        RedrivePolicy: {
          deadLetterTargetArn: {
            'Fn::GetAtt': [logicalId(synth.stack.starter.startRequests.deadLetterQueue), 'Arn'],
          },
          maxReceiveCount: 5,
        },
      });
    });

    it('every queue is encrypted and refuses non-TLS requests', () => {
      const queues = template.findResources('AWS::SQS::Queue');
      // Work queues and their DLQs, the conflict and alert inboxes, the admission release's and the
      // notifier's failure queues, and each client's reply queue and its DLQ.
      expect(Object.keys(queues)).toHaveLength(
        2 * (V1_STEPS.length + 1) + 4 + 2 * synth.config.clients.length,
      );
      const policies = Object.values(template.findResources('AWS::SQS::QueuePolicy'));
      for (const [id, queue] of Object.entries(queues)) {
        expect(queue.Properties.SqsManagedSseEnabled).toBe(true);
        const denies = policies.filter(
          (policy) =>
            JSON.stringify(policy.Properties.Queues).includes(`"${id}"`) &&
            JSON.stringify(policy.Properties.PolicyDocument).includes('"aws:SecureTransport":"false"'),
        );
        expect(denies).toHaveLength(1);
      }
    });

    it('starter and agents consume their queues, and the two stream consumers the state stream, with partial batch failures', () => {
      const all = Object.values(template.findResources('AWS::Lambda::EventSourceMapping'));
      const onStream = (mapping: (typeof all)[number]) =>
        JSON.stringify(mapping.Properties.EventSourceArn).includes('StreamArn');
      // The admission release and the status notifier read the state table's stream.
      expect(all.filter(onStream)).toHaveLength(2);
      for (const mapping of all.filter(onStream)) {
        expect(mapping.Properties.FunctionResponseTypes).toEqual(['ReportBatchItemFailures']);
      }
      const mappings = all.filter((mapping) => !onStream(mapping));
      expect(mappings).toHaveLength(V1_STEPS.length + 1);
      for (const mapping of mappings) {
        expect(mapping.Properties.FunctionResponseTypes).toEqual(['ReportBatchItemFailures']);
      }
      template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
        FunctionName: { Ref: functionIdByService(template, 'start-order') },
        EventSourceArn: { 'Fn::GetAtt': [logicalId(synth.stack.starter.startRequests.queue), 'Arn'] },
      });
    });
  });

  describe('submission API', () => {
    it('requires an API key on every client route (the operator routes are IAM-authorised)', () => {
      const methods = Object.values(template.findResources('AWS::ApiGateway::Method')).filter(
        (method) => method.Properties.AuthorizationType !== 'AWS_IAM',
      );
      expect(methods.map((m) => m.Properties.HttpMethod).sort()).toEqual(['GET', 'POST']);
      for (const method of methods) expect(method.Properties.ApiKeyRequired).toBe(true);
    });

    it("throttles each client's key to its share of the stage throttling (equal shares: one usage plan, per key), and throttles the stage", () => {
      const { rateLimit, burstLimit } = synth.config.apiThrottle;
      // The profile states no shares: an equal share each, so every key is in the one plan.
      const share = 100 / synth.config.clients.length;
      template.resourceCountIs('AWS::ApiGateway::UsagePlan', 1);
      template.hasResourceProperties('AWS::ApiGateway::UsagePlan', {
        Throttle: {
          RateLimit: Math.round(rateLimit * share) / 100,
          BurstLimit: Math.floor((burstLimit * share) / 100),
        },
        ApiStages: [Match.objectLike({ ApiId: { Ref: Match.anyValue() } })],
      });
      template.resourceCountIs('AWS::ApiGateway::UsagePlanKey', synth.config.clients.length);
      template.hasResourceProperties('AWS::ApiGateway::Stage', {
        AccessLogSetting: { DestinationArn: Match.anyValue(), Format: Match.anyValue() },
        TracingEnabled: true,
        MethodSettings: Match.arrayWith([
          Match.objectLike({
            ThrottlingRateLimit: rateLimit,
            ThrottlingBurstLimit: burstLimit,
            DataTraceEnabled: false,
          }),
        ]),
      });
    });

    it('routes POST /orders to submit-order and GET /orders/{orderId} to get-order', () => {
      const integrationOf = (method: string) =>
        JSON.stringify(
          Object.values(template.findResources('AWS::ApiGateway::Method')).find(
            (m) => m.Properties.HttpMethod === method,
          )?.Properties.Integration,
        );
      expect(integrationOf('POST')).toContain(functionIdByService(template, 'submit-order'));
      expect(integrationOf('GET')).toContain(functionIdByService(template, 'get-order'));
      template.hasResourceProperties('AWS::ApiGateway::Resource', { PathPart: '{orderId}' });
    });

    it('submit-order may write both tables and send to the start and conflict queues, and raises no alert', () => {
      const statements = statementsOfFunction(template, functionIdByService(template, 'submit-order'));
      const conflictQueue = logicalId(synth.stack.submission.conflictQueue);
      const startQueue = logicalId(synth.stack.starter.startRequests.queue);
      const sends = statementsWithAction(statements, 'sqs:SendMessage').map((s) =>
        JSON.stringify(s.Resource),
      );
      expect(sends.join()).toContain(conflictQueue);
      expect(sends.join()).toContain(startQueue);
      const puts = statementsWithAction(statements, 'dynamodb:PutItem').map((s) => s.Resource);
      expect(puts).toEqual(
        expect.arrayContaining([
          { 'Fn::GetAtt': [logicalId(synth.stack.stateStore.table), 'Arn'] },
          { 'Fn::GetAtt': [logicalId(synth.stack.ordersDatabase.table), 'Arn'] },
        ]),
      );
      expect(statementsWithAction(statements, 'events:PutEvents')).toHaveLength(0);
    });

    it('get-order may only read state records', () => {
      const statements = statementsOfFunction(template, functionIdByService(template, 'get-order'));
      const dynamo = statements.flatMap(actionsOf).filter((action) => action.startsWith('dynamodb:'));
      expect(dynamo).toEqual(['dynamodb:GetItem']);
    });
  });

  describe('starter and agents', () => {
    it('the starter may start executions of the scheduler and nothing else in Step Functions', () => {
      const statements = statementsOfFunction(template, functionIdByService(template, 'start-order'));
      const states = statements.flatMap(actionsOf).filter((action) => action.startsWith('states:'));
      // One grant per live version's state machine (by default v1 and v3, current), each by name.
      expect(new Set(states)).toEqual(new Set(['states:StartExecution']));
      expect(
        statementsWithAction(statements, 'states:StartExecution').map((statement) => statement.Resource),
      ).toEqual(
        [...synth.stack.workflows.values()].map((workflow) => ({ Ref: logicalId(workflow.stateMachine) })),
      );
    });

    it('the starter may read an order (GetItem, for a lean version input) and nothing more in the orders table', () => {
      const statements = statementsOfFunction(template, functionIdByService(template, 'start-order'));
      const ordersTable = logicalId(synth.stack.ordersDatabase.table);
      const onOrders = statements.filter((statement) =>
        JSON.stringify(statement.Resource).includes(ordersTable),
      );
      expect(onOrders.flatMap(actionsOf)).toEqual(['dynamodb:GetItem']);
    });

    it('agents may answer the scheduler (SendTask*), invoke the remote function URL and use the idempotency table', () => {
      const remote = functionIdByService(template, 'remote-service');
      for (const step of V1_STEPS) {
        const statements = statementsOfFunction(
          template,
          functionIdByService(template, `agent-${step.service}`),
        );
        const actions = statements.flatMap(actionsOf);
        expect(actions).toEqual(
          expect.arrayContaining([
            'states:SendTaskSuccess',
            'states:SendTaskFailure',
            'states:SendTaskHeartbeat',
          ]),
        );
        const invokeUrl = statementsWithAction(statements, 'lambda:InvokeFunctionUrl');
        expect(invokeUrl).toHaveLength(1);
        expect(invokeUrl[0]).toMatchObject({
          Resource: { 'Fn::GetAtt': [remote, 'Arn'] },
          Condition: { StringEquals: { 'lambda:FunctionUrlAuthType': 'AWS_IAM' } },
        });
        expect(statementsWithAction(statements, 'dynamodb:PutItem')[0]?.Resource).toEqual({
          'Fn::GetAtt': [logicalId(synth.stack.idempotencyStore.table), 'Arn'],
        });
      }
    });
  });

  describe('state machine resource', () => {
    it('is a Standard workflow with X-Ray tracing and ALL-level logs without execution data', () => {
      template.hasResourceProperties('AWS::StepFunctions::StateMachine', {
        StateMachineType: 'STANDARD',
        TracingConfiguration: { Enabled: true },
        LoggingConfiguration: Match.objectLike({ Level: 'ALL', IncludeExecutionData: false }),
      });
    });
  });

  describe('operator alerts', () => {
    it('routes order-processing events on the alert bus to the alert inbox only (the KMS-encrypted topic gets the alarms)', () => {
      const bus = logicalId(synth.stack.alerts.bus);
      const topic = logicalId(synth.stack.alerts.topic);
      const inbox = logicalId(synth.stack.alerts.inbox);
      template.hasResourceProperties('AWS::Events::Rule', {
        EventBusName: { Ref: bus },
        EventPattern: { source: [ALERT_EVENT_SOURCE] },
        Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [inbox, 'Arn'] } })],
      });
      expect(resourcesOf(template)[topic]?.Properties?.KmsMasterKeyId).toBeDefined();
      template.hasResourceProperties('AWS::KMS::Key', { EnableKeyRotation: true });
    });

    it('has no email subscription unless alertEmail is given (the inbox takes the alarm notifications)', () => {
      template.resourcePropertiesCountIs('AWS::SNS::Subscription', { Protocol: 'email' }, 0);
      template.resourceCountIs('AWS::SNS::Subscription', 1);
    });
  });

  it('exports exactly the outputs the acceptance suite and the local runtime read', () => {
    expect(Object.keys(template.toJSON().Outputs).sort()).toEqual(outputsWithoutConsole());
  });
});

describe('SchedulerAgentSupervisor stack (local profile, alert email)', () => {
  let synth: SynthesizedStack;
  beforeAll(() => {
    synth = synthesizeStack('local', { alertEmail: 'ops@example.com' });
  });

  it('runs the fake services by default, the agents signing their calls to them', () => {
    expect(synth.stack.remoteServices).toBeDefined();
    for (const step of V1_STEPS) {
      expect(environmentOf(synth.template, `agent-${step.service}`)[EnvKey.RemoteAuth]).toBe('iam');
    }
    expect(Object.keys(synth.template.toJSON().Outputs).sort()).toEqual(outputsWithoutConsole());
  });

  it('deletes data with the stack (retainData false) and keeps logs 7 days', () => {
    const table = resourcesOf(synth.template)[logicalId(synth.stack.stateStore.table)];
    expect(table?.DeletionPolicy).toBe('Delete');
    for (const group of Object.values(synth.template.findResources('AWS::Logs::LogGroup'))) {
      expect(group.Properties.RetentionInDays).toBe(7);
    }
  });

  it('traces nothing: no function has active tracing, and each turns the Tracer off (no X-Ray locally)', () => {
    const functions = Object.values(synth.template.findResources('AWS::Lambda::Function'));
    expect(functions.length).toBeGreaterThan(0);
    for (const fn of functions) {
      expect(fn.Properties.TracingConfig).toBeUndefined();
      expect(fn.Properties.Environment.Variables.POWERTOOLS_TRACE_ENABLED).toBe('false');
    }
  });

  it('subscribes the operator email to the alert topic', () => {
    synth.template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'ops@example.com',
    });
  });

  it('uses the local callback windows on every agent (timeout and 6x visibility)', () => {
    for (const worker of synth.stack.agents) {
      const queue = resourcesOf(synth.template)[logicalId(worker.requests.queue)];
      expect(queue?.Properties?.VisibilityTimeout).toBe(6 * (synth.config.timings.stepTimeoutSeconds + 10));
    }
  });
});

describe('SchedulerAgentSupervisor stack (default profile, real endpoints)', () => {
  let synth: SynthesizedStack;
  beforeAll(() => {
    synth = synthesizeStack('default', { context: ENDPOINTS_CONTEXT });
  });

  it('deploys no fake service: no remote-service function, function URL or ledger table', () => {
    expect(synth.stack.remoteServices).toBeUndefined();
    const services = Object.values(synth.template.findResources('AWS::Lambda::Function')).map(
      (fn) => fn.Properties.Environment.Variables.POWERTOOLS_SERVICE_NAME,
    );
    expect(services).not.toContain('remote-service');
    expect(services).toHaveLength(12 + V1_STEPS.length);
    synth.template.resourceCountIs('AWS::Lambda::Url', 0);
    // State, orders, idempotency, admission counters and the alert archive.
    synth.template.resourceCountIs('AWS::DynamoDB::Table', 5);
  });

  it('points each agent at its service endpoint, unsigned, and grants it no function URL', () => {
    for (const step of V1_STEPS) {
      const variables = environmentOf(synth.template, `agent-${step.service}`);
      expect(variables[EnvKey.RemoteEndpointUrl]).toBe(
        ENDPOINTS_CONTEXT[`${step.service}Endpoint` as keyof typeof ENDPOINTS_CONTEXT],
      );
      expect(variables[EnvKey.RemoteAuth]).toBe('none');
      const statements = statementsOfFunction(
        synth.template,
        functionIdByService(synth.template, `agent-${step.service}`),
      );
      expect(statementsWithAction(statements, 'lambda:InvokeFunctionUrl')).toEqual([]);
    }
  });

  it('exports no fake-service output', () => {
    expect(Object.keys(synth.template.toJSON().Outputs).sort()).toEqual(
      outputsWithoutConsole().filter((name) => !FAKE_SERVICE_OUTPUTS.includes(name)),
    );
  });

  it('an IAM-authenticated endpoint: its agent signs, and may invoke that function URL and nothing else', () => {
    const iam = synthesizeStack('default', { context: IAM_ENDPOINTS_CONTEXT });
    const inventory = environmentOf(iam.template, 'agent-inventory');
    expect(inventory[EnvKey.RemoteEndpointUrl]).toBe(IAM_ENDPOINTS_CONTEXT.inventoryEndpoint);
    expect(inventory[EnvKey.RemoteAuth]).toBe('iam');
    const invoke = statementsWithAction(
      statementsOfFunction(iam.template, functionIdByService(iam.template, 'agent-inventory')),
      'lambda:InvokeFunctionUrl',
    );
    expect(invoke).toEqual([
      expect.objectContaining({
        Resource: IAM_ENDPOINTS_CONTEXT.inventoryFunctionArn,
        Condition: { StringEquals: { 'lambda:FunctionUrlAuthType': 'AWS_IAM' } },
      }),
    ]);
    for (const service of ['payment', 'shipping']) {
      expect(environmentOf(iam.template, `agent-${service}`)[EnvKey.RemoteAuth]).toBe('none');
    }
  });

  it('the local profile takes plain http endpoints too, and then runs no fakes', () => {
    const local = synthesizeStack('local', {
      context: {
        inventoryEndpoint: 'http://127.0.0.1:4000',
        paymentEndpoint: 'http://127.0.0.1:4001/',
        shippingEndpoint: 'https://shipping.example.com',
      },
    });
    expect(local.stack.remoteServices).toBeUndefined();
    expect(environmentOf(local.template, 'agent-payment')[EnvKey.RemoteEndpointUrl]).toBe(
      'http://127.0.0.1:4001',
    );
  });
});
