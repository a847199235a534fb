/**
 * Confused deputy: every resource policy that lets EventBridge in (the alert inbox) limits it to
 * this account's alert rule, in both wings' templates; and the alert items never reach the mail
 * topic (one mail per item would let any API-key holder mail the operators per request): it gets
 * the wings' alarms only. The local
 * runtime does not enforce SNS topic or KMS key policies: these conditions are checked here, on
 * the synthesized template, not end to end.
 */
import type { Template } from 'aws-cdk-lib/assertions';
import { synthesizeDroneDelivery } from '../choreography/synth';
import { synthesizeStack } from '../support/synth';

interface Statement {
  readonly Sid?: string;
  readonly Effect: string;
  readonly Principal?: { readonly Service?: string | string[] };
  readonly Action: string | string[];
  // biome-ignore lint/suspicious/noExplicitAny: conditions as the template holds them
  readonly Condition?: Record<string, Record<string, any>>;
}

const POLICY_OF: Readonly<Record<string, string>> = {
  'AWS::SNS::TopicPolicy': 'PolicyDocument',
  'AWS::SQS::QueuePolicy': 'PolicyDocument',
  'AWS::KMS::Key': 'KeyPolicy',
};

/** Every Allow statement of a resource policy whose principal is events.amazonaws.com. */
function eventBridgeGrants(template: Template): { type: string; id: string; statement: Statement }[] {
  const resources = template.toJSON().Resources as Record<
    string,
    { Type: string; Properties: Record<string, { Statement: Statement[] }> }
  >;
  return Object.entries(resources).flatMap(([id, resource]) => {
    const key = POLICY_OF[resource.Type];
    if (!key) return [];
    return (resource.Properties[key]?.Statement ?? [])
      .filter((statement) => statement.Effect === 'Allow')
      .filter((statement) => [statement.Principal?.Service].flat().includes('events.amazonaws.com'))
      .map((statement) => ({ type: resource.Type, id, statement }));
  });
}

function alertRuleId(template: Template): string {
  const rules = template.toJSON().Resources as Record<
    string,
    { Type: string; Properties: { Description?: string } }
  >;
  const ids = Object.entries(rules)
    .filter(
      ([, r]) =>
        r.Type === 'AWS::Events::Rule' && r.Properties.Description?.startsWith('Every operator alert'),
    )
    .map(([id]) => id);
  expect(ids).toHaveLength(1);
  return ids[0] as string;
}

describe.each<[string, () => Template]>([
  ['SchedulerAgentSupervisor', () => synthesizeStack('default', { context: { demo: 'true' } }).template],
  ['DroneDelivery', () => synthesizeDroneDelivery({ profile: 'default' }).template],
])(
  '%s: EventBridge is let into the alert inbox by the alert rule only, and not into the mail topic',
  (_stack, synth) => {
    let template: Template;
    let grants: ReturnType<typeof eventBridgeGrants>;
    beforeAll(() => {
      template = synth();
      grants = eventBridgeGrants(template);
    });

    it('every grant to EventBridge names its source (aws:SourceArn): no policy lets any rule of any account in', () => {
      expect(grants.length).toBeGreaterThanOrEqual(1);
      for (const { statement } of grants) {
        const sourceArn =
          statement.Condition?.ArnEquals?.['aws:SourceArn'] ??
          statement.Condition?.ArnLike?.['aws:SourceArn'];
        expect(sourceArn).toBeDefined();
      }
    });

    it('the alert items do not reach the mail topic: no EventBridge grant on the topic or its key, the rule targets the inbox only', () => {
      expect(grants.filter((grant) => grant.type === 'AWS::SNS::TopicPolicy')).toEqual([]);
      expect(grants.filter((grant) => grant.type === 'AWS::KMS::Key')).toEqual([]);
      const rule = (
        template.toJSON().Resources as Record<string, { Properties: { Targets: { Arn: unknown }[] } }>
      )[alertRuleId(template)];
      expect(rule?.Properties.Targets).toHaveLength(1);
      expect(JSON.stringify(rule?.Properties.Targets[0]?.Arn)).toContain('Inbox');
    });

    it('the inbox policy: from the alert rule (aws:SourceArn)', () => {
      const fromAlertRule = grants.filter(
        (grant) =>
          grant.type === 'AWS::SQS::QueuePolicy' &&
          grant.statement.Condition?.ArnEquals?.['aws:SourceArn']?.['Fn::GetAtt']?.[0] ===
            alertRuleId(template),
      );
      expect(fromAlertRule).toHaveLength(1);
    });
  },
);
