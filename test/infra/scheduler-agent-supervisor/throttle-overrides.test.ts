/**
 * CDK context over the orders API's throttling (a test's small limits and unequal shares):
 * `apiThrottle=<rate>/<burst>` is the stage's throttle and `throttleShares=<client>:<percent>,...`
 * the clients' shares of it, each client's key in the usage plan of its share; bad text is refused
 * naming the key.
 */
import { SAS_PROFILES } from '../../../lib/scheduler-agent-supervisor/config';
import {
  apiThrottleWithOverride,
  clientsWithThrottleShares,
} from '../../../lib/scheduler-agent-supervisor/throttle-overrides';
import { resourcesOf, synthesizeStack } from '../support/synth';

describe('throttle overrides', () => {
  it("synthesizes the stage's throttle and each client's share from the context", () => {
    const { template } = synthesizeStack('local', {
      context: { apiThrottle: '0.5/40', throttleShares: 'web-shop:25,call-center:75' },
    });
    const resources = Object.values(resourcesOf(template));
    const stage = resources.find((resource) => resource.Type === 'AWS::ApiGateway::Stage');
    expect(stage?.Properties?.MethodSettings).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          HttpMethod: '*',
          ResourcePath: '/*',
          ThrottlingRateLimit: 0.5,
          ThrottlingBurstLimit: 40,
        }),
      ]),
    );
    const plans = resources
      .filter((resource) => resource.Type === 'AWS::ApiGateway::UsagePlan')
      .map((plan) => plan.Properties?.Throttle);
    expect(plans).toEqual(
      expect.arrayContaining([
        { RateLimit: 0.13, BurstLimit: 10 },
        { RateLimit: 0.38, BurstLimit: 30 },
      ]),
    );
  });

  it('keeps the profile without the context', () => {
    const { apiThrottle, clients } = SAS_PROFILES.local;
    expect(apiThrottleWithOverride(apiThrottle, undefined)).toBe(apiThrottle);
    expect(clientsWithThrottleShares(clients, undefined)).toBe(clients);
    expect(clientsWithThrottleShares(clients, 'call-center:60')).toEqual([
      clients[0],
      { ...clients[1], throttleShare: 60 },
    ]);
  });

  it.each([
    ['1', /CDK context "apiThrottle" must be <rate>\/<burst>/],
    ['1/0', /CDK context "apiThrottle" must be <rate>\/<burst>/],
    ['-1/4', /CDK context "apiThrottle" must be <rate>\/<burst>/],
  ])('refuses apiThrottle=%s', (text, message) => {
    expect(() => apiThrottleWithOverride(SAS_PROFILES.local.apiThrottle, text)).toThrow(message);
  });

  it.each([
    ['web-shop=25', /CDK context "throttleShares" must be <client>:<percent>,\.\.\., got "web-shop=25"/],
    [
      'nobody:25',
      /CDK context "throttleShares" names 'nobody', which is no client \(web-shop, call-center\)/,
    ],
    ['web-shop:25,web-shop:30', /CDK context "throttleShares" names 'web-shop' twice/],
  ])('refuses throttleShares=%s', (text, message) => {
    expect(() => clientsWithThrottleShares(SAS_PROFILES.local.clients, text)).toThrow(message);
  });

  it('refuses shares over 100 % as the profile would, naming the clients', () => {
    expect(() =>
      synthesizeStack('local', { context: { throttleShares: 'web-shop:60,call-center:60' } }),
    ).toThrow(/shares add up to 120 %/);
  });
});
