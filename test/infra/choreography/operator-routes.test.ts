import { Stack } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { ChoreographyEnvKey, DELIVERIES_BY_STATUS_INDEX } from '../../../lambdas/choreography/contracts';
import { BROWSER_ORIGIN_ENV } from '../../../lambdas/shared/http';
import { consoleOriginOf } from '../../../lib/choreography/deployment';
import { actionsOf, type PolicyStatement, resourcesOf, statementsOfFunction } from '../support/synth';
import { type SynthesizedDroneDelivery, synthesizeDroneDelivery } from './synth';

const logicalId = (construct: IConstruct) =>
  Stack.of(construct).getLogicalId(construct.node.defaultChild as never) as string;
const arnOf = (construct: IConstruct) => JSON.stringify({ 'Fn::GetAtt': [logicalId(construct), 'Arn'] });

/** Each method of the REST API as `VERB /path`, with its properties. */
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

/** The DynamoDB actions a function may take, as `action -> table ARNs (JSON)`. */
function tableGrants(statements: PolicyStatement[]): Record<string, string[]> {
  const byAction: Record<string, string[]> = {};
  for (const statement of statements) {
    for (const action of actionsOf(statement).filter((name) => name.startsWith('dynamodb:'))) {
      const resources = Array.isArray(statement.Resource) ? statement.Resource : [statement.Resource];
      byAction[action] = [...(byAction[action] ?? []), ...resources.map((r) => JSON.stringify(r))].sort();
    }
  }
  return byAction;
}

const ORIGIN = 'https://d1234abcd.cloudfront.net';

describe('delivery operator routes (default profile, demo)', () => {
  let synth: SynthesizedDroneDelivery;
  beforeAll(() => {
    synth = synthesizeDroneDelivery({ profile: 'default', demo: 'true' });
  });

  it('adds GET /operator/deliveries and /operator/deliveries/{deliveryId}, authorised by IAM without the API key', () => {
    const operator = methodPaths(synth.template).filter(({ path }) => path.includes('/operator'));
    expect(operator.map(({ path }) => path).sort()).toEqual([
      'GET /operator/deliveries',
      'GET /operator/deliveries/{deliveryId}',
    ]);
    for (const { method } of operator) {
      expect(method).toMatchObject({ AuthorizationType: 'AWS_IAM', ApiKeyRequired: false });
    }
    // The requesters' routes keep their API key and no IAM.
    for (const { method } of methodPaths(synth.template).filter(({ path }) => !path.includes('/operator'))) {
      expect(method).toMatchObject({ ApiKeyRequired: true });
    }
  });

  it("lists with Query on the ingestion table's deliveries-by-status index only (no Scan, no table access)", () => {
    const routes = synth.stack.api.operator;
    const indexArn = JSON.stringify({
      'Fn::Join': [
        '',
        [
          { 'Fn::GetAtt': [logicalId(synth.stack.tables.ingestion.table), 'Arn'] },
          `/index/${DELIVERIES_BY_STATUS_INDEX.name}`,
        ],
      ],
    });
    expect(
      tableGrants(statementsOfFunction(synth.template, logicalId(routes.listDeliveries.function))),
    ).toEqual({ 'dynamodb:Query': [indexArn] });
  });

  it('gives the ingestion table its deliveries-by-status index, keyed and projected as the contract says, and no other table an index', () => {
    const tables = synth.template.findResources('AWS::DynamoDB::Table');
    const ingestionId = logicalId(synth.stack.tables.ingestion.table);
    expect(tables[ingestionId]?.Properties.GlobalSecondaryIndexes).toEqual([
      {
        IndexName: DELIVERIES_BY_STATUS_INDEX.name,
        KeySchema: [
          { AttributeName: DELIVERIES_BY_STATUS_INDEX.partitionKey, KeyType: 'HASH' },
          { AttributeName: DELIVERIES_BY_STATUS_INDEX.sortKey, KeyType: 'RANGE' },
        ],
        Projection: {
          ProjectionType: 'INCLUDE',
          NonKeyAttributes: [...DELIVERIES_BY_STATUS_INDEX.projectedAttributes],
        },
      },
    ]);
    for (const table of Object.values(synth.stack.tables)) {
      if (table === synth.stack.tables.ingestion) continue;
      expect(tables[logicalId(table.table)]?.Properties.GlobalSecondaryIndexes).toBeUndefined();
    }
  });

  it('builds the trail with GetItem on each service table, nothing else, and knows their names', () => {
    const routes = synth.stack.api.operator;
    const id = logicalId(routes.showDelivery.function);
    const tables = Object.values(synth.stack.tables).map((table) => arnOf(table.table));
    expect(tableGrants(statementsOfFunction(synth.template, id))).toEqual({
      'dynamodb:GetItem': tables.sort(),
    });
    const env = resourcesOf(synth.template)[id]?.Properties?.Environment as {
      Variables: Record<string, unknown>;
    };
    expect(Object.keys(env.Variables)).toContain(ChoreographyEnvKey.DeliveryTables);
  });

  it('allows no browser origin unless the context names the console', () => {
    expect(synth.stack.api.operator.browserOrigin).toBeUndefined();
    expect(methodPaths(synth.template).filter(({ path }) => path.startsWith('OPTIONS'))).toEqual([]);
    expect(Object.keys(synth.template.findResources('AWS::ApiGateway::GatewayResponse'))).toEqual([]);
  });
});

describe('delivery operator routes with the console origin', () => {
  let synth: SynthesizedDroneDelivery;
  beforeAll(() => {
    synth = synthesizeDroneDelivery({ profile: 'default', demo: 'true', consoleOrigin: `${ORIGIN}/` });
  });

  it('answer preflights for that origin alone, and the functions and gateway answers carry it', () => {
    const preflights = methodPaths(synth.template).filter(({ path }) => path.startsWith('OPTIONS'));
    expect(preflights.map(({ path }) => path).sort()).toEqual([
      'OPTIONS /operator/deliveries',
      'OPTIONS /operator/deliveries/{deliveryId}',
    ]);
    for (const { method } of preflights) {
      const integration = method.Integration as {
        IntegrationResponses: { ResponseParameters: Record<string, string> }[];
      };
      expect(
        integration.IntegrationResponses[0]?.ResponseParameters[
          'method.response.header.Access-Control-Allow-Origin'
        ],
      ).toBe(`'${ORIGIN}'`);
    }
    const routes = synth.stack.api.operator;
    for (const fn of [routes.listDeliveries, routes.showDelivery]) {
      const env = resourcesOf(synth.template)[logicalId(fn.function)]?.Properties?.Environment as {
        Variables: Record<string, unknown>;
      };
      expect(env.Variables[BROWSER_ORIGIN_ENV]).toBe(ORIGIN);
    }
    // The requesters' functions answer no browser.
    const submit = resourcesOf(synth.template)[logicalId(synth.stack.api.submitDelivery.function)]?.Properties
      ?.Environment as { Variables: Record<string, unknown> };
    expect(submit.Variables[BROWSER_ORIGIN_ENV]).toBeUndefined();
    const gateway = Object.values(synth.template.findResources('AWS::ApiGateway::GatewayResponse'));
    expect(
      gateway.map(
        (response) =>
          response.Properties.ResponseParameters['gatewayresponse.header.Access-Control-Allow-Origin'],
      ),
    ).toEqual([`'${ORIGIN}'`, `'${ORIGIN}'`]);
  });

  it('pass cdk-nag AwsSolutions with no unacknowledged finding', () => {
    const violations = new AwsSolutionsChecks().validateScope(synth.app).violations.map((v) => v.ruleName);
    expect(violations).toEqual([]);
  });

  it('fail when a second origin is allowed', () => {
    expect(() => synth.stack.api.operator.allowBrowserOrigin('https://other.example')).toThrow(
      /DeliveryOperatorRoutes .*a browser origin is already allowed/,
    );
  });
});

describe('the consoleOrigin context', () => {
  it.each([
    'http://d1234.cloudfront.net',
    'https://d1234.cloudfront.net/console/',
    'd1234.cloudfront.net',
    '',
  ])('fails when it is not an https origin: %p', (origin) => {
    expect(() => consoleOriginOf(origin)).toThrow(/"consoleOrigin" must be an https origin/);
  });

  it('is the origin without a trailing slash', () => {
    expect(consoleOriginOf('https://d1234.cloudfront.net/')).toBe('https://d1234.cloudfront.net');
    expect(consoleOriginOf(undefined)).toBeUndefined();
  });
});
