/**
 * A keyed REST API's shares of the stage throttle per key (keyShares): each named key throttled on
 * its own to its share (keys of equal shares in one usage plan, `UsagePlan`, so the default keeps
 * every key where it was), and bad shares fail the synth naming the client. A share changed apart
 * from the others moves that key to a plan of its own, which the release check refuses
 * (usage-plan-key-moved: API Gateway allows a key one plan per stage); equal shares changed
 * together update the one plan in place.
 */

import { Template } from 'aws-cdk-lib/assertions';
import { MockIntegration } from 'aws-cdk-lib/aws-apigateway';
import { createKeyedRestApi, type KeyedRestApiProps } from '../../../lib/platform/keyed-rest-api';
import { throttleShareOf } from '../../../lib/platform/throttle-shares';
import { checkUpgrade } from '../../../lib/release';
import { probeStack } from '../support/synth';

const props = (
  keyShares: Readonly<Record<string, number>>,
  keyNames = ['alpha', 'beta'],
): KeyedRestApiProps => ({
  description: 'probe',
  clients: 'Probe clients',
  throttle: { rateLimit: 50, burstLimit: 100 },
  bodyValidation: 'probe',
  keyNames,
  keyShares,
});

describe('createKeyedRestApi keyShares', () => {
  it('keeps keys of equal shares in the one usage plan `UsagePlan` (where they were), throttled to that share', () => {
    const stack = probeStack();
    const { api } = createKeyedRestApi(stack, props({ alpha: 50, beta: 50 }));
    api.root.addMethod('GET', new MockIntegration());
    const template = Template.fromStack(stack);
    const plans = template.findResources('AWS::ApiGateway::UsagePlan');
    expect(Object.keys(plans)).toEqual([expect.stringMatching(/^ApiUsagePlan[0-9A-F]{8}$/)]);
    expect(Object.values(plans)[0]?.Properties.Throttle).toEqual({ RateLimit: 25, BurstLimit: 50 });
    template.resourceCountIs('AWS::ApiGateway::UsagePlanKey', 2);
  });

  it("throttles each key to its own share of the stage's rate and burst when the shares differ (a plan per share)", () => {
    const stack = probeStack();
    const { api, namedKeys } = createKeyedRestApi(stack, props({ alpha: 70, beta: 30 }));
    api.root.addMethod('GET', new MockIntegration());
    const template = Template.fromStack(stack);
    const plans = template.findResources('AWS::ApiGateway::UsagePlan');
    expect(Object.values(plans).map((plan) => plan.Properties.Throttle)).toEqual(
      expect.arrayContaining([
        { RateLimit: 35, BurstLimit: 70 },
        { RateLimit: 15, BurstLimit: 30 },
      ]),
    );
    expect(Object.keys(plans)).toHaveLength(2);
    const planKeys = Object.values(template.findResources('AWS::ApiGateway::UsagePlanKey'));
    expect(planKeys).toHaveLength(2);
    for (const [name, share] of [
      ['alpha', 70],
      ['beta', 30],
    ] as const) {
      const keyId = stack.resolve((namedKeys.get(name) as { keyId: string }).keyId);
      const planKey = planKeys.find(
        (candidate) => JSON.stringify(candidate.Properties.KeyId) === JSON.stringify(keyId),
      );
      if (!planKey) throw new Error(`no usage plan key for ${name}`);
      const planId = (planKey.Properties.UsagePlanId as { Ref: string }).Ref;
      expect(plans[planId]?.Properties.Throttle).toEqual({
        RateLimit: throttleShareOf({ rateLimit: 50, burstLimit: 100 }, share).rateLimit,
        BurstLimit: throttleShareOf({ rateLimit: 50, burstLimit: 100 }, share).burstLimit,
      });
    }
  });

  it('moves a key to another plan when its share changes apart from the others, which the release check refuses', () => {
    const templateOf = (shares: Readonly<Record<string, number>>, keyNames?: string[]) => {
      const stack = probeStack();
      const { api } = createKeyedRestApi(stack, props(shares, keyNames));
      api.root.addMethod('GET', new MockIntegration());
      return Template.fromStack(stack).toJSON();
    };
    const equal = templateOf({ alpha: 50, beta: 50 });
    // Both shares changed together: the one plan is updated in place.
    expect(checkUpgrade(equal, templateOf({ alpha: 40, beta: 40 })).failures).toEqual([]);
    const moved = checkUpgrade(equal, templateOf({ alpha: 70, beta: 30 })).failures;
    expect(moved.map(({ rule, reason }) => ({ rule, reason: reason.slice(0, 60) }))).toEqual([
      {
        rule: 'usage-plan-key-moved',
        reason: expect.stringMatching(/^adds the API key ApiApiKeybeta\w+ to usa/),
      },
    ]);
    // A new client with a share of its own is a new key in a new plan: nothing moves.
    const newcomer = templateOf({ alpha: 40, beta: 40, gamma: 20 }, ['alpha', 'beta', 'gamma']);
    expect(checkUpgrade(templateOf({ alpha: 40, beta: 40 }), newcomer).failures).toEqual([]);
  });

  it.each([
    [
      { alpha: 70, beta: 31 },
      /the clients' shares add up to 101 %, more than 100 % \(alpha 70 %, beta 31 %\)/,
    ],
    [{ alpha: 0, beta: 30 }, /client 'alpha' needs a share above 0 and at most 100 %, got 0/],
    [{ alpha: -5, beta: 30 }, /client 'alpha' needs a share above 0 and at most 100 %, got -5/],
    [{ alpha: 50 }, /client 'beta' needs a share above 0 and at most 100 %, got undefined/],
    [{ alpha: 50, beta: 20, gamma: 10 }, /a share is given for 'gamma', which is no client/],
  ])('fails the synth for shares %p, naming the client', (shares, message) => {
    expect(() => createKeyedRestApi(probeStack(), props(shares))).toThrow(message);
  });

  it('refuses shares without named keys', () => {
    expect(() => createKeyedRestApi(probeStack(), { ...props({ alpha: 50 }), keyNames: undefined })).toThrow(
      /keyShares needs keyNames/,
    );
  });

  it('keeps a rate above 0 and a burst of at least 1 for the smallest shares', () => {
    expect(throttleShareOf({ rateLimit: 1, burstLimit: 1 }, 0.1)).toEqual({ rateLimit: 0.01, burstLimit: 1 });
  });
});
