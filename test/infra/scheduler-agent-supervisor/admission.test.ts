import { type CfnElement, Stack } from 'aws-cdk-lib';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import {
  ADMISSION_INDEX,
  EnvKey,
  TERMINAL_STATES,
} from '../../../lambdas/scheduler-agent-supervisor/contracts';
import {
  admissionWithOverrides,
  loadConfig,
  SAS_PROFILES,
  validateSasSettings,
} from '../../../lib/scheduler-agent-supervisor/config';
import {
  actionsOf,
  DEMO_CONTEXT,
  functionIdByService,
  resourcesOf,
  type SynthesizedStack,
  statementsOfFunction,
  statementsWithAction,
  synthesizeStack,
} from '../support/synth';

const logicalId = (construct: IConstruct): string =>
  Stack.of(construct).resolve((construct.node.defaultChild as CfnElement).logicalId) as string;

function environmentOf(template: Template, service: string): Record<string, unknown> {
  const fn = resourcesOf(template)[functionIdByService(template, service)];
  const environment = fn?.Properties?.Environment as { Variables: Record<string, unknown> } | undefined;
  if (!environment) throw new Error(`Function of ${service} has no environment`);
  return environment.Variables;
}

/** Resources of the statements granting `action` to the function of `service`. */
function resourcesGranted(template: Template, service: string, action: string): string[] {
  const statements = statementsOfFunction(template, functionIdByService(template, service));
  return statementsWithAction(statements, action).map((statement) => JSON.stringify(statement.Resource));
}

describe('admission control (default profile, demo)', () => {
  let synth: SynthesizedStack;
  let template: Template;
  let admissionTableId: string;
  let stateTableId: string;
  beforeAll(() => {
    synth = synthesizeStack('default', { context: DEMO_CONTEXT });
    template = synth.template;
    admissionTableId = logicalId(synth.stack.admissionStore.table);
    stateTableId = logicalId(synth.stack.stateStore.table);
  });

  it('keeps the counters in their own table: key Pk, on-demand, encrypted, point-in-time recovery, retained', () => {
    const table = resourcesOf(template)[admissionTableId];
    expect(table?.Properties).toMatchObject({
      KeySchema: [{ AttributeName: 'Pk', KeyType: 'HASH' }],
      BillingMode: 'PAY_PER_REQUEST',
      SSESpecification: { SSEEnabled: true },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
    });
    expect(table?.Properties?.GlobalSecondaryIndexes).toBeUndefined();
    expect(table?.DeletionPolicy).toBe('Retain');
  });

  it('streams the state table (new and old images) and holds the sparse AdmissionIndex (AdmissionShard S, UpdatedAt S)', () => {
    const table = resourcesOf(template)[stateTableId];
    expect(table?.Properties?.StreamSpecification).toEqual({ StreamViewType: 'NEW_AND_OLD_IMAGES' });
    expect(table?.Properties?.GlobalSecondaryIndexes).toContainEqual({
      IndexName: ADMISSION_INDEX.name,
      KeySchema: [
        { AttributeName: 'AdmissionShard', KeyType: 'HASH' },
        { AttributeName: 'UpdatedAt', KeyType: 'RANGE' },
      ],
      Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: ['ProcessState'] },
    });
    expect(table?.Properties?.AttributeDefinitions).toEqual(
      expect.arrayContaining([
        { AttributeName: 'AdmissionShard', AttributeType: 'S' },
        { AttributeName: 'UpdatedAt', AttributeType: 'S' },
      ]),
    );
  });

  it('submit-order takes slots: admission settings in its environment, UpdateItem and GetItem on the counters only', () => {
    const variables = environmentOf(template, 'submit-order');
    // Each client's share of the limit: the default profile states none, so an equal share each.
    const equal = Math.floor(synth.config.admission.limit / synth.config.clients.length);
    expect(JSON.parse(variables[EnvKey.AdmissionSettings] as string)).toEqual({
      ...synth.config.admission,
      clientCaps: Object.fromEntries(synth.config.clients.map((client) => [client.name, equal])),
    });
    expect(variables[EnvKey.AdmissionTableName]).toEqual({ Ref: admissionTableId });
    const admissionArn = JSON.stringify({ 'Fn::GetAtt': [admissionTableId, 'Arn'] });
    expect(resourcesGranted(template, 'submit-order', 'dynamodb:UpdateItem')).toEqual([admissionArn]);
    expect(resourcesGranted(template, 'submit-order', 'dynamodb:GetItem')).toContain(admissionArn);
    expect(resourcesGranted(template, 'submit-order', 'dynamodb:ConditionCheckItem')).toEqual([
      JSON.stringify({ 'Fn::GetAtt': [logicalId(synth.stack.ordersDatabase.table), 'Arn'] }),
    ]);
  });

  it('the releaser consumes the state stream: filtered to terminal records holding a slot, bisecting, bounded, with an on-failure queue', () => {
    const releaserId = functionIdByService(template, 'admission-release');
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: releaserId },
      EventSourceArn: { 'Fn::GetAtt': [stateTableId, 'StreamArn'] },
      StartingPosition: 'TRIM_HORIZON',
      BisectBatchOnFunctionError: true,
      MaximumRetryAttempts: 5,
      MaximumRecordAgeInSeconds: 3600,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      DestinationConfig: {
        OnFailure: {
          Destination: {
            'Fn::GetAtt': [logicalId(synth.stack.admissionRelease.deadLetterQueue), 'Arn'],
          },
        },
      },
      FilterCriteria: {
        Filters: [
          {
            Pattern: JSON.stringify({
              dynamodb: {
                NewImage: {
                  AdmissionShard: { S: [{ exists: true }] },
                  ProcessState: { S: [...TERMINAL_STATES] },
                },
              },
            }),
          },
        ],
      },
    });
  });

  it('the reconciler reads a found record (its AdmissionClientShard, which the index does not project); the releaser reads none', () => {
    const stateArn = JSON.stringify({ 'Fn::GetAtt': [stateTableId, 'Arn'] });
    expect(resourcesGranted(template, 'admission-reconciler', 'dynamodb:GetItem')).toContain(stateArn);
    expect(resourcesGranted(template, 'admission-release', 'dynamodb:GetItem')).not.toContain(stateArn);
  });

  it('the releaser and the reconciler update the record and the counter; only the reconciler queries, and only AdmissionIndex', () => {
    const stateArn = JSON.stringify({ 'Fn::GetAtt': [stateTableId, 'Arn'] });
    const admissionArn = JSON.stringify({ 'Fn::GetAtt': [admissionTableId, 'Arn'] });
    for (const service of ['admission-release', 'admission-reconciler']) {
      expect(resourcesGranted(template, service, 'dynamodb:UpdateItem').sort()).toEqual(
        [stateArn, admissionArn].sort(),
      );
      expect(resourcesGranted(template, service, 'dynamodb:PutItem')).toEqual([admissionArn]);
      const statements = statementsOfFunction(template, functionIdByService(template, service));
      expect(statements.flatMap(actionsOf)).not.toContain('dynamodb:Scan');
    }
    expect(resourcesGranted(template, 'admission-release', 'dynamodb:Query')).toEqual([]);
    const query = resourcesGranted(template, 'admission-reconciler', 'dynamodb:Query');
    expect(query).toHaveLength(1);
    expect(query[0]).toContain(`/index/${ADMISSION_INDEX.name}`);
  });

  it('the reconciler runs alone every minute, with no retries of a missed run, and reads the profile settings', () => {
    const id = functionIdByService(template, 'admission-reconciler');
    expect(resourcesOf(template)[id]?.Properties?.ReservedConcurrentExecutions).toBe(1);
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 minute)',
      Targets: [
        Match.objectLike({ Arn: { 'Fn::GetAtt': [id, 'Arn'] }, RetryPolicy: { MaximumRetryAttempts: 0 } }),
      ],
    });
    const variables = environmentOf(template, 'admission-reconciler');
    expect(JSON.parse(variables[EnvKey.AdmissionSettings] as string)).toEqual({
      limit: 2000,
      shards: 8,
      reconcileGraceSeconds: 300,
    });
  });

  it('outputs the admission table name (acceptance reads the counters)', () => {
    template.hasOutput('AdmissionTableName', { Value: { Ref: admissionTableId } });
  });
});

describe('admission settings', () => {
  it('CDK context admissionLimit / admissionShards override the profile (a test with a small limit)', () => {
    const { template } = synthesizeStack('local', {
      context: { admissionLimit: '4', admissionShards: '2' },
    });
    const settings = {
      limit: 4,
      shards: 2,
      reconcileGraceSeconds: SAS_PROFILES.local.admission.reconcileGraceSeconds,
    };
    for (const service of ['admission-reconciler', 'admission-release']) {
      expect(JSON.parse(environmentOf(template, service)[EnvKey.AdmissionSettings] as string)).toEqual(
        settings,
      );
    }
    // The clients' shares follow the overridden limit (an equal share each: 2 of 4).
    expect(JSON.parse(environmentOf(template, 'submit-order')[EnvKey.AdmissionSettings] as string)).toEqual({
      ...settings,
      clientCaps: { 'web-shop': 2, 'call-center': 2 },
    });
  });

  it.each([
    [{ limit: '0' }, /CDK context "admissionLimit" must be a positive integer, got "0"/],
    [{ limit: 'many' }, /CDK context "admissionLimit" must be a positive integer/],
    [{ limit: '3' }, /admission shards must be an integer from 1 to the limit \(3\), got 4/],
    [{ shards: '2.5' }, /CDK context "admissionShards" must be a positive integer/],
  ])('refuses the override %j', (overrides, message) => {
    expect(() => admissionWithOverrides(SAS_PROFILES.local.admission, overrides)).toThrow(message);
  });

  it.each([
    [
      { limit: 0, shards: 1, reconcileGraceSeconds: 5 },
      /Profile 'broken': admission limit must be a positive integer, got 0/,
    ],
    [{ limit: 4, shards: 5, reconcileGraceSeconds: 5 }, /Profile 'broken': admission shards .* \(4\), got 5/],
    [{ limit: 4, shards: 0, reconcileGraceSeconds: 5 }, /Profile 'broken': admission shards .* got 0/],
    [
      { limit: 4, shards: 2, reconcileGraceSeconds: 0 },
      /Profile 'broken': admission reconcileGraceSeconds must be an integer/,
    ],
  ])('a profile with admission %j fails, naming the setting', (admission, message) => {
    expect(() => validateSasSettings('broken', { ...loadConfig('local'), admission })).toThrow(message);
  });
});
