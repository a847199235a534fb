import type { App } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { synthesizeDroneDelivery } from './synth';

const violationsOf = (app: App) =>
  new AwsSolutionsChecks().validateScope(app).violations.map((v) => ({
    rule: v.ruleName,
    resources: v.violatingResources.map((r) => r.constructPath),
  }));

describe('cdk-nag AwsSolutions on DroneDelivery', () => {
  it.each([
    ['default', 'demo (fake fleet)', { demo: 'true' }],
    ['default', 'real drones', {}],
    ['local', 'fake fleet', {}],
  ])('profile %s, %s: no unacknowledged error or warning', (profile, _variant, context) => {
    const { app } = synthesizeDroneDelivery({ profile, alertEmail: 'ops@example.com', ...context });
    expect(violationsOf(app)).toEqual([]);
  });
});
