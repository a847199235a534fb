/**
 * The delivery requesters as the stack wires them: a key per configured requester in the usage plan,
 * and the registry of key ids the two ingestion handlers read (REQUESTER_REGISTRY).
 */
import { type CfnElement, Stack } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';
import type * as apigw from 'aws-cdk-lib/aws-apigateway';
import { ChoreographyEnvKey } from '../../../lambdas/choreography/contracts';
import { loadChoreographyConfig, validateChoreographySettings } from '../../../lib/choreography/config';
import { resources, type SynthesizedDroneDelivery, synthesizeDroneDelivery } from './synth';

const logicalIdOf = (key: apigw.IApiKey): string =>
  Stack.of(key).resolve((key.node.defaultChild as CfnElement).logicalId) as string;

describe('delivery requesters (default profile)', () => {
  const config = loadChoreographyConfig('default');
  let synth: SynthesizedDroneDelivery;
  let template: Template;
  beforeAll(() => {
    synth = synthesizeDroneDelivery({ profile: 'default', demo: 'true' });
    template = synth.template;
  });

  it('configures more than one requester, so isolation is exercised on every profile', () => {
    expect(config.requesters.length).toBeGreaterThan(1);
    expect(loadChoreographyConfig('local').requesters.length).toBeGreaterThan(1);
  });

  it('gives every configured requester its own API key in the usage plan, and no key without a requester', () => {
    const keys = resources(template, 'AWS::ApiGateway::ApiKey');
    expect(Object.keys(keys)).toHaveLength(config.requesters.length);
    expect([...synth.stack.api.requesterKeys.keys()]).toEqual(config.requesters);
    for (const name of config.requesters) {
      const id = logicalIdOf(synth.stack.api.requesterKeys.get(name) as apigw.IApiKey);
      expect(keys[id]?.Properties.StageKeys).toBeUndefined();
      template.hasResourceProperties('AWS::ApiGateway::UsagePlanKey', {
        KeyId: { Ref: id },
        KeyType: 'API_KEY',
      });
    }
    // The first requester keeps the former shared key (its holders keep its value; upgrade-safety checks it).
    expect(synth.stack.api.apiKey.node.id).toBe('ApiKey');
    // The tooling's key (the stack output) is the first requester's.
    expect(logicalIdOf(synth.stack.api.apiKey)).toBe(
      logicalIdOf(synth.stack.api.requesterKeys.get(config.requesters[0] as string) as apigw.IApiKey),
    );
  });

  it('hands submit-delivery and get-delivery the registry of every requester and its key id', () => {
    const functions = resources(template, 'AWS::Lambda::Function');
    for (const construct of [synth.stack.api.submitDelivery, synth.stack.api.getDelivery]) {
      const id = Stack.of(construct).resolve((construct.function.node.defaultChild as CfnElement).logicalId);
      const registry = functions[id as string]?.Properties.Environment.Variables[
        ChoreographyEnvKey.RequesterRegistry
      ] as unknown;
      const rendered = JSON.stringify(registry);
      for (const name of config.requesters) {
        expect(rendered).toContain(`\\"requesterId\\":\\"${name}\\"`);
        const keyId = logicalIdOf(synth.stack.api.requesterKeys.get(name) as apigw.IApiKey);
        expect(rendered).toContain(`"Ref":"${keyId}"`);
      }
    }
    // No other function learns the requesters.
    const holders = Object.values(functions).filter(
      (fn) => fn.Properties.Environment?.Variables?.[ChoreographyEnvKey.RequesterRegistry] !== undefined,
    );
    expect(holders).toHaveLength(2);
  });

  it('refuses a profile whose requesters are empty, repeated or badly named, naming them', () => {
    for (const requesters of [[], ['a', 'a'], ['Bad Name']]) {
      expect(() => validateChoreographySettings('test', { ...config, requesters })).toThrow(
        /requesters must be one or more distinct names/,
      );
    }
  });
});
