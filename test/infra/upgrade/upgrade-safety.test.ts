/**
 * Upgrade safety (README, Releasing): every released configuration's current templates, synthesized
 * in-process as `cdk deploy` would (bin/released-configurations.ts), diffed with
 * @aws-cdk/cloudformation-diff against the last release's (released/, its README names the release):
 * no stateful resource replaced, deleted or orphaned and no update CloudFormation refuses
 * (lib/release/check-upgrade.ts), unless the loss is acknowledged in acknowledged.json. Every other
 * change is printed, as information. Also: the configurations a user deploys that have no released
 * templates have the stateful resources of one that has.
 */
import { RELEASED_CONFIGURATIONS, synthesizeTemplates } from '../../../bin/released-configurations';
import { DroneDeliveryContextKey } from '../../../lib/choreography/deployment';
import {
  type CfnResource,
  type CfnTemplate,
  checkUpgrade,
  describeFinding,
  formatReport,
  isStateful,
  normalizeTemplate,
  readAcknowledgments,
  readReleasedTemplate,
  type UpgradeReport,
} from '../../../lib/release';
import { SasContextKey } from '../../../lib/scheduler-agent-supervisor/sas-context-key';
import { IAM_ENDPOINTS_CONTEXT } from '../support/synth';

interface StackUpgrade {
  readonly configuration: string;
  readonly stack: string;
  /** Undefined when the release had no such stack. */
  readonly report?: UpgradeReport;
}

const acknowledgments = readAcknowledgments();
const current = new Map<string, Map<string, CfnTemplate>>();
let upgrades: StackUpgrade[] = [];

/** The normalized templates of every stack for `context`. */
const templatesOf = (context: Readonly<Record<string, string>>) =>
  new Map([...synthesizeTemplates(context)].map(([stack, template]) => [stack, normalizeTemplate(template)]));

beforeAll(() => {
  for (const configuration of RELEASED_CONFIGURATIONS) {
    current.set(configuration.name, templatesOf(configuration.context));
  }
  upgrades = RELEASED_CONFIGURATIONS.flatMap((configuration) =>
    [...(current.get(configuration.name) ?? [])].map(([stack, template]) => {
      const released = readReleasedTemplate(configuration.name, stack);
      const mine = acknowledgments.filter((acknowledgment) => acknowledgment.stack === stack);
      return {
        configuration: configuration.name,
        stack,
        ...(released && { report: checkUpgrade(released, template, { acknowledgments: mine }) }),
      };
    }),
  );
});

describe('upgrading from the released templates', () => {
  it.each(RELEASED_CONFIGURATIONS.map((configuration) => configuration.name))(
    '%s: replaces, deletes or orphans no stateful resource and asks for no update CloudFormation refuses',
    (name) => {
      const mine = upgrades.filter((upgrade) => upgrade.configuration === name);
      expect(mine.length).toBeGreaterThan(0);
      const printed = mine
        .map(({ stack, report }) =>
          report
            ? formatReport(`${name}/${stack}`, report)
            : `${name}/${stack}: no released template (new since the release)`,
        )
        .filter((text) => text !== '');
      if (printed.length > 0) console.log(printed.join('\n'));
      expect(
        mine.flatMap(({ stack, report }) =>
          (report?.failures ?? []).map((finding) => `${name}/${stack}: ${describeFinding(finding)}`),
        ),
      ).toEqual([]);
    },
  );

  it('every acknowledged loss is one this upgrade has (none outlives its reason)', () => {
    const used = (stack: string, logicalId: string, rule: string) =>
      upgrades.some(
        (upgrade) =>
          upgrade.stack === stack &&
          upgrade.report?.acknowledged.some(
            (finding) => finding.logicalId === logicalId && finding.rule === rule,
          ),
      );
    expect(acknowledgments.filter(({ stack, logicalId, rule }) => !used(stack, logicalId, rule))).toEqual([]);
  });
});

describe('configurations without released templates', () => {
  /** Every stateful resource of every stack, by stack and logical id. */
  const statefulOf = (templates: ReadonlyMap<string, CfnTemplate>) =>
    Object.fromEntries(
      [...templates].map(([stack, template]) => [
        stack,
        Object.fromEntries(
          Object.entries(template.Resources ?? {}).filter(([, resource]: [string, CfnResource]) =>
            isStateful(resource.Type),
          ),
        ),
      ]),
    );

  it.each([
    ['demo', 'an alert email', { [SasContextKey.AlertEmail]: 'ops@example.com' }],
    [
      'console',
      "the console's Deliveries tab",
      { [DroneDeliveryContextKey.ConsoleOrigin]: 'https://d1234abcd.cloudfront.net' },
    ],
    ['endpoints', 'an IAM-authorized function URL', IAM_ENDPOINTS_CONTEXT],
  ] as const)(
    '%s with %s: the same stateful resources, so the released templates cover it',
    (name, _what, extra) => {
      const base = RELEASED_CONFIGURATIONS.find((configuration) => configuration.name === name);
      const released = current.get(name);
      if (!base || !released) throw new Error(`no released configuration ${name}`);
      expect(statefulOf(templatesOf({ ...base.context, ...extra }))).toEqual(statefulOf(released));
    },
  );
});
