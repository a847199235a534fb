/** The provisioner registry: the one list of what the local runtime runs, leaves inert, or names. */

import { standardProvisioners } from '../../../lib/local-runtime/provisioners';
import { NOT_EMULATED, type Provisioner, ProvisionerRegistry } from '../../../lib/local-runtime/provisioning';

describe('provisioner registry', () => {
  const registry = standardProvisioners();

  it('lists the supported types from the provisioners that claim them', () => {
    expect(registry.supportedTypes()).toEqual(
      expect.arrayContaining([
        'AWS::DynamoDB::Table',
        'AWS::SQS::Queue',
        'AWS::Lambda::Function',
        'AWS::Lambda::EventSourceMapping',
        'AWS::Lambda::Url',
        'AWS::Lambda::EventInvokeConfig',
        'AWS::Events::EventBus',
        'AWS::Events::Rule',
        'AWS::Scheduler::Schedule',
        'AWS::SNS::Topic',
        'AWS::SNS::Subscription',
        'AWS::StepFunctions::StateMachine',
        'AWS::ApiGateway::RestApi',
        'AWS::ApiGateway::ApiKey',
      ]),
    );
    const described = registry.describe();
    for (const type of registry.supportedTypes()) {
      expect(described.find((entry) => entry.type === type)).toMatchObject({
        kind: 'run',
        provisioner: expect.any(String),
      });
    }
    expect(registry.handling('AWS::Lambda::Url')).toEqual({
      kind: 'run',
      provisioner: 'Lambda function URLs',
    });
  });

  it("runs the account's IAM (roles, policies, keys) and names what of IAM it does not run", () => {
    for (const type of [
      'AWS::IAM::Role',
      'AWS::IAM::Policy',
      'AWS::IAM::ManagedPolicy',
      'AWS::KMS::Key',
      'AWS::KMS::Alias',
    ]) {
      expect(registry.handling(type)).toEqual({ kind: 'run', provisioner: 'IAM' });
    }
    expect(registry.handling('AWS::IAM::User')).toMatchObject({ kind: 'not-run', provisioner: 'IAM' });
  });

  it('runs Lambda permissions: they are the functions’ resource policies, which IAM evaluates', () => {
    expect(registry.handling('AWS::Lambda::Permission')).toMatchObject({
      kind: 'run',
      provisioner: 'Lambda',
    });
  });

  it('marks observability types inert, by family or by type', () => {
    expect(registry.handling('AWS::Logs::LogGroup').kind).toBe('inert');
    expect(registry.handling('AWS::CDK::Metadata').kind).toBe('inert');
  });

  it('lists a WAF web ACL and its association as inert (not emulated), not unsupported', () => {
    for (const type of ['AWS::WAFv2::WebACL', 'AWS::WAFv2::WebACLAssociation']) {
      expect(registry.handling(type)).toMatchObject({
        kind: 'inert',
        reason: 'web ACLs are not emulated: no per-IP rate limit locally',
      });
    }
  });

  it('leaves EventBridge schema registries and schemas inert, not unsupported', () => {
    for (const type of ['AWS::EventSchemas::Registry', 'AWS::EventSchemas::Schema']) {
      expect(registry.handling(type)).toEqual({
        kind: 'inert',
        provisioner: 'EventBridge',
        reason: 'the schema registry is not served locally',
      });
    }
  });

  it('names types it knows but does not run with their reason, and any other type as not emulated', () => {
    expect(registry.handling('AWS::CloudWatch::CompositeAlarm')).toEqual({
      kind: 'not-run',
      provisioner: 'CloudWatch',
      reason: 'composite alarms are not evaluated locally',
    });
    expect(registry.handling('AWS::ApiGateway::UsagePlan')).toEqual({
      kind: 'run',
      provisioner: 'API Gateway',
    });
    expect(registry.handling('AWS::Made::Up')).toEqual({ kind: 'not-run', reason: NOT_EMULATED });
    expect(registry.handling('AWS::S3::Bucket')).toEqual({
      kind: 'not-run',
      reason: 'resource type not emulated',
    });
  });

  it('refuses two provisioners claiming one type', () => {
    const claiming = (name: string, type: string): Provisioner => ({ name, resourceTypes: { runs: [type] } });
    expect(() => new ProvisionerRegistry([claiming('A', 'AWS::X::Y'), claiming('B', 'AWS::X::Y')])).toThrow(
      'AWS::X::Y is claimed by A and B: one provisioner per type',
    );
    expect(
      () =>
        new ProvisionerRegistry([
          { name: 'A', resourceTypes: { inert: { 'AWS::X::*': 'a' } } },
          { name: 'B', resourceTypes: { notRun: { 'AWS::X::*': 'b' } } },
        ]),
    ).toThrow('AWS::X::* is claimed by A and B');
  });

  it('prefers an exact type over a family pattern', () => {
    const registry = new ProvisionerRegistry([
      { name: 'Family', resourceTypes: { inert: { 'AWS::X::*': 'no effect' } } },
      { name: 'Exact', resourceTypes: { runs: ['AWS::X::Runs'] } },
    ]);
    expect(registry.handling('AWS::X::Runs')).toEqual({ kind: 'run', provisioner: 'Exact' });
    expect(registry.handling('AWS::X::Other')).toEqual({
      kind: 'inert',
      provisioner: 'Family',
      reason: 'no effect',
    });
    expect(registry.handling('AWS::XY::Other').kind).toBe('not-run');
  });
});
