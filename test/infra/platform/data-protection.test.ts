/**
 * The data protections of both stacks, on the synthesized templates (issue 23, the lows): every
 * KMS permission a role holds is usable only through the service the key serves (`kms:ViaService`),
 * a role that only reads a table gets only Decrypt (and DescribeKey) on its key, the orders and
 * ingestion tables have customer-managed keys of their own, every table is deletion-protected where
 * its data is kept, and the agents' queue event sources are capped.
 */
import type { Template } from 'aws-cdk-lib/assertions';
import { loadConfig } from '../../../lib/scheduler-agent-supervisor/config';
import { synthesizeDroneDelivery } from '../choreography/synth';
import { DEMO_CONTEXT, synthesizeStack } from '../support/synth';

type Resources = Record<
  string,
  { Type: string; Properties: Record<string, unknown>; DeletionPolicy?: string }
>;
interface Statement {
  readonly Effect: string;
  readonly Action: string | string[];
  readonly Resource: unknown;
  readonly Condition?: Record<string, Record<string, unknown>>;
}

const READ_ACTIONS = new Set([
  'dynamodb:GetItem',
  'dynamodb:BatchGetItem',
  'dynamodb:Query',
  'dynamodb:Scan',
  'dynamodb:ConditionCheckItem',
  'dynamodb:DescribeTable',
  'dynamodb:DescribeStream',
  'dynamodb:GetRecords',
  'dynamodb:GetShardIterator',
  'dynamodb:ListStreams',
]);

const templates: Record<string, Template> = {
  'orders (default, demo)': synthesizeStack('default', { context: DEMO_CONTEXT }).template,
  'orders (local)': synthesizeStack('local').template,
  'deliveries (default, demo)': synthesizeDroneDelivery(DEMO_CONTEXT).template,
  'deliveries (local)': synthesizeDroneDelivery({ profile: 'local' }).template,
};

const actionsOf = (statement: Statement): string[] =>
  Array.isArray(statement.Action) ? statement.Action : [statement.Action];
const idOf = (value: unknown): string | undefined =>
  (value as { 'Fn::GetAtt'?: [string, string] })?.['Fn::GetAtt']?.[0] ?? (value as { Ref?: string })?.Ref;

/** Every allow statement of every identity policy, by the role it is attached to. */
function statementsByRole(resources: Resources): Map<string, Statement[]> {
  const byRole = new Map<string, Statement[]>();
  for (const resource of Object.values(resources)) {
    if (resource.Type !== 'AWS::IAM::Policy') continue;
    const statements = (resource.Properties.PolicyDocument as { Statement: Statement[] }).Statement;
    for (const role of resource.Properties.Roles as unknown[]) {
      const id = idOf(role) as string;
      byRole.set(id, [...(byRole.get(id) ?? []), ...statements.filter((s) => s.Effect === 'Allow')]);
    }
  }
  return byRole;
}

/** The table ids a resource of a DynamoDB statement names (the table, its indexes or stream). */
function tablesNamed(resource: unknown, tableIds: readonly string[]): string[] {
  const text = JSON.stringify(resource);
  return tableIds.filter((id) => text.includes(`"${id}"`));
}

describe.each(Object.entries(templates))('%s', (_name, template) => {
  const resources = template.toJSON().Resources as Resources;
  const tables = Object.entries(resources).filter(([, resource]) => resource.Type === 'AWS::DynamoDB::Table');
  const keyOfTable = new Map(
    tables.map(([id, table]) => [
      id,
      idOf((table.Properties.SSESpecification as { KMSMasterKeyId?: unknown }).KMSMasterKeyId),
    ]),
  );

  it('grants every KMS permission only through the service the key serves (kms:ViaService)', () => {
    const kmsStatements = [...statementsByRole(resources).values()]
      .flat()
      .filter((statement) => actionsOf(statement).some((action) => action.startsWith('kms:')));
    expect(kmsStatements.length).toBeGreaterThan(0);
    for (const statement of kmsStatements) {
      const via = JSON.stringify(statement.Condition?.StringEquals?.['kms:ViaService']);
      expect(via).toMatch(/"(dynamodb|sqs|sns)\.",\{"Ref":"AWS::Region"\},"\.amazonaws\.com"/);
      expect(actionsOf(statement).every((action) => !action.includes('*'))).toBe(true);
    }
  });

  it("gives a role that only reads a table Decrypt and DescribeKey on the table's key, never Encrypt or GenerateDataKey", () => {
    const tableIds = tables.map(([id]) => id);
    let readers = 0;
    for (const [role, statements] of statementsByRole(resources)) {
      for (const [tableId, keyId] of keyOfTable) {
        if (!keyId) continue;
        const tableActions = statements
          .filter((statement) => tablesNamed(statement.Resource, tableIds).includes(tableId))
          .flatMap(actionsOf)
          .filter((action) => action.startsWith('dynamodb:'));
        if (tableActions.length === 0 || !tableActions.every((action) => READ_ACTIONS.has(action))) continue;
        readers += 1;
        const keyActions = statements
          .filter((statement) => idOf(statement.Resource) === keyId)
          .flatMap(actionsOf);
        expect({ role, keyActions: [...new Set(keyActions)].sort() }).toEqual({
          role,
          keyActions: ['kms:Decrypt', 'kms:DescribeKey'],
        });
      }
    }
    expect(readers).toBeGreaterThan(0);
  });

  it('protects every table from deletion where its data is kept, and only there', () => {
    for (const [id, table] of tables) {
      const kept = table.DeletionPolicy === 'Retain';
      expect({ id, protection: table.Properties.DeletionProtectionEnabled }).toEqual({
        id,
        protection: kept,
      });
    }
  });
});

describe('customer-managed keys', () => {
  it.each([
    ['orders (default, demo)', 'OrdersDatabaseTable', 'OrdersDataKey'],
    ['orders (default, demo)', 'StateStoreTable', 'StateDataKey'],
    ['deliveries (default, demo)', 'IngestionTable', 'IngestionDataKey'],
  ])('%s: %s is encrypted with its own rotated key %s', (name, tablePrefix, keyPrefix) => {
    const resources = templates[name]?.toJSON().Resources as Resources;
    const [, table] = Object.entries(resources).find(([id]) => id.startsWith(tablePrefix)) ?? [];
    const sse = table?.Properties.SSESpecification as { KMSMasterKeyId?: unknown; SSEType?: string };
    expect(sse.SSEType).toBe('KMS');
    const keyId = idOf(sse.KMSMasterKeyId) as string;
    expect(keyId.startsWith(keyPrefix)).toBe(true);
    expect(resources[keyId]?.Properties.EnableKeyRotation).toBe(true);
  });
});

describe("the agents' queue event sources", () => {
  it.each([
    ['orders (default, demo)', 'default'],
    ['orders (local)', 'local'],
  ])("%s: at most the profile's agentMaxConcurrency invocations at once", (name, profile) => {
    const resources = templates[name]?.toJSON().Resources as Resources;
    const agentMappings = Object.entries(resources).filter(
      ([id, resource]) =>
        resource.Type === 'AWS::Lambda::EventSourceMapping' && /AgentRequestsQueue/.test(id),
    );
    expect(agentMappings).toHaveLength(3);
    for (const [, mapping] of agentMappings) {
      expect(mapping.Properties.ScalingConfig).toEqual({
        MaximumConcurrency: loadConfig(profile).agentMaxConcurrency,
      });
    }
  });
});
