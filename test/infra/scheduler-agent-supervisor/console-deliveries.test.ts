/**
 * The deployed console's Deliveries tab, as the composition root wires it (bin/compose.ts): with
 * `consoleOrigin` the delivery API answers the console's origin, and the console is told the
 * delivery API's URL, lets it in its CSP and lets its operators invoke those routes and no other
 * of that API; without it, the console has no Deliveries tab and the stacks stay independent.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import {
  type ComposedApp,
  composeApp,
  DELIVERY_ALARMS_WING,
  DELIVERY_OPERATOR_EXPORT,
} from '../../../bin/compose';
import { DRONE_DELIVERY_STACK_NAME } from '../../../lib/choreography/stack';
import { STACK_NAME } from '../../../lib/scheduler-agent-supervisor/stack';
import { DEMO_CONTEXT, resourcesOf, testApp } from '../support/synth';

const ORIGIN = 'https://d1234abcd.cloudfront.net';
let assetsDir: string;

beforeAll(() => {
  assetsDir = mkdtempSync(join(tmpdir(), 'console-assets-'));
  writeFileSync(join(assetsDir, 'index.html'), '<!doctype html><title>console</title>');
});
afterAll(() => rmSync(assetsDir, { recursive: true, force: true }));

function compose(context: Record<string, string>) {
  const app = testApp({ profile: 'default', ...DEMO_CONTEXT, console: 'true', ...context });
  const composed = composeApp(app, assetsDir);
  return { app, ...composed };
}

/** Every string of a value (a template fragment) joined, tokens and imports rendered as JSON. */
const flat = (value: unknown) => JSON.stringify(value);

/** The deploy-time values of the console's config file (the bucket deployment's source markers). */
function configOf(template: Template): string {
  return flat(
    Object.values(template.findResources('Custom::CDKBucketDeployment')).map(
      (deployment) => deployment.Properties.SourceMarkers,
    ),
  );
}

/** The execute-api resources the operator role may invoke. */
function invokableBy(template: Template, composed: ComposedApp): unknown[] {
  return grantedTo(template, composed, 'execute-api:Invoke');
}

/** The resources of the operator role's statements that allow `action`. */
function grantedTo(template: Template, composed: ComposedApp, action: string): unknown[] {
  const role = composed.orders.operatorConsole?.signIn.authenticatedRole;
  if (!role) throw new Error('no console');
  const roleId = composed.orders.getLogicalId(role.node.defaultChild as never);
  const policies = Object.values(resourcesOf(template)).filter(
    (resource) => resource.Type === 'AWS::IAM::Policy' && flat(resource.Properties?.Roles).includes(roleId),
  );
  return policies.flatMap((policy) =>
    (
      (policy.Properties?.PolicyDocument ?? { Statement: [] }) as {
        Statement: { Action: unknown; Resource: unknown }[];
      }
    ).Statement.filter((statement) => flat(statement.Action).includes(action)).flatMap((statement) =>
      Array.isArray(statement.Resource) ? statement.Resource : [statement.Resource],
    ),
  );
}

describe('the console with the delivery API (consoleOrigin given)', () => {
  let composed: ReturnType<typeof compose>;
  let orders: Template;
  beforeAll(() => {
    composed = compose({ consoleOrigin: ORIGIN });
    orders = Template.fromStack(composed.orders);
  });

  it('the delivery API answers the console origin; the console stack depends on the delivery stack, not the other way', () => {
    expect(composed.deliveries.api.operator.browserOrigin).toBe(ORIGIN);
    expect(composed.orders.dependencies).toContain(composed.deliveries);
    expect(composed.deliveries.dependencies).not.toContain(composed.orders);
  });

  it('tells the page the delivery API URL and lets its origin in the CSP connect-src', () => {
    expect(configOf(orders)).toContain(`"Fn::ImportValue":"${DELIVERY_OPERATOR_EXPORT}-ApiUrl"`);
    const csp = flat(orders.findResources('AWS::CloudFront::ResponseHeadersPolicy'));
    expect(csp).toContain('Fn::ImportValue');
    expect(csp.match(/execute-api/g)?.length).toBe(2);
  });

  it('lets operators invoke the delivery operator methods only (two), besides the orders operator routes', () => {
    const resources = invokableBy(orders, composed).map(flat);
    const imported = resources.filter((resource) => resource.includes('Fn::ImportValue'));
    expect(imported).toHaveLength(2);
    expect(imported.join(' ')).toContain('/GET/operator/deliveries');
    // Not the requesters' routes (POST /deliveries, GET /deliveries/{id}): those take the API key.
    expect(imported.join(' ')).not.toMatch(/\/(POST|GET)\/deliveries/);
  });

  it('passes cdk-nag AwsSolutions on both stacks with no unacknowledged finding', () => {
    const violations = new AwsSolutionsChecks().validateScope(composed.app).violations.map((violation) => ({
      rule: violation.ruleName,
      resources: violation.violatingResources.map((resource) => resource.constructPath),
    }));
    expect(violations).toEqual([]);
  });
});

/**
 * The alarms the page lists (what the console writes into config.json's `alarmSources`; the file
 * itself is a deploy-time asset the test cannot read back) and those the role may DescribeAlarms:
 * each stack's, `alarm:<stack name>-*`, and no other.
 */
function expectBothStacksAlarms(composed: ReturnType<typeof compose>): void {
  const orders = Template.fromStack(composed.orders);
  expect(composed.orders.operatorConsole?.alarmSources).toEqual([
    { wing: 'Orders', namePrefix: `${STACK_NAME}-` },
    { wing: DELIVERY_ALARMS_WING, namePrefix: `${DRONE_DELIVERY_STACK_NAME}-` },
  ]);
  const alarms = grantedTo(orders, composed, 'cloudwatch:DescribeAlarms').map(flat);
  expect(alarms).toHaveLength(2);
  expect(alarms[0]).toContain(`:alarm:${STACK_NAME}-*`);
  expect(alarms[1]).toContain(`:alarm:${DRONE_DELIVERY_STACK_NAME}-*`);
  // Both stacks' alarms really carry those prefixes, and none another.
  for (const stack of [composed.orders, composed.deliveries]) {
    const names = Object.values(Template.fromStack(stack).findResources('AWS::CloudWatch::Alarm')).map(
      (alarm) => alarm.Properties.AlarmName as string,
    );
    expect(names.length).toBeGreaterThan(0);
    for (const name of names) expect(name.startsWith(`${stack.stackName}-`)).toBe(true);
  }
}

describe("the console's alarm panel", () => {
  it("shows both stacks' alarms, with or without the Deliveries tab, and the role reads those two prefixes only", () => {
    expectBothStacksAlarms(compose({ consoleOrigin: ORIGIN }));
    const withoutTab = compose({});
    expectBothStacksAlarms(withoutTab);
    // A stack name crosses as a plain string: no import, no dependency.
    expect(withoutTab.orders.dependencies).toEqual([]);
  });
});

describe('the console without consoleOrigin', () => {
  it('has no Deliveries tab, and the stacks stay independent', () => {
    const composed = compose({});
    const orders = Template.fromStack(composed.orders);
    expect(configOf(orders)).not.toContain('Fn::ImportValue');
    expect(invokableBy(orders, composed).map(flat).join(' ')).not.toContain('Fn::ImportValue');
    expect(composed.orders.dependencies).toEqual([]);
  });
});
