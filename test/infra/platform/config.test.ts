import {
  type ContextReader,
  loadPlatformConfig,
  PLATFORM_PROFILES,
  PROFILE_NAMES,
  readFlag,
  readText,
  resolveProfileName,
} from '../../../lib/platform/config';

const context =
  (values: Record<string, unknown>): ContextReader =>
  (key) =>
    values[key];

describe('platform config', () => {
  it('defines every profile, each with the settings every wing shares', () => {
    expect(Object.keys(PLATFORM_PROFILES).sort()).toEqual([...PROFILE_NAMES].sort());
    expect(loadPlatformConfig('local')).toEqual({
      profile: 'local',
      logRetentionDays: 7,
      retainData: false,
      emulated: true,
      alarmPeriodSeconds: 10,
      apiRateLimitPerIp: undefined,
      tracing: false,
    });
    expect(loadPlatformConfig(undefined)).toEqual({
      profile: 'default',
      logRetentionDays: 30,
      retainData: true,
      emulated: false,
      alarmPeriodSeconds: 60,
      apiRateLimitPerIp: 3000,
      tracing: true,
    });
  });

  it.each([['staging'], [42], ['']])('fails on an unknown profile %p, naming the known ones', (name) => {
    expect(() => resolveProfileName(name)).toThrow(
      `Unknown profile '${String(name)}' (CDK context "profile"). Known profiles: default, local`,
    );
  });

  describe('context values', () => {
    it.each([
      [undefined, false],
      [false, false],
      ['false', false],
      [true, true],
      ['true', true],
    ])('reads the flag %p as %p', (value, expected) => {
      expect(readFlag(context({ demo: value }), 'demo')).toBe(expected);
    });

    it.each([['yes'], ['1'], [1], ['TRUE']])('fails on a flag %p that is neither true nor false', (value) => {
      expect(() => readFlag(context({ demo: value }), 'demo')).toThrow(
        `CDK context "demo" must be true or false, got ${JSON.stringify(value)}`,
      );
    });

    it('reads text, absent or empty as undefined, and fails on anything else naming the key', () => {
      expect(readText(context({ url: 'https://x' }), 'url')).toBe('https://x');
      expect(readText(context({}), 'url')).toBeUndefined();
      expect(readText(context({ url: '' }), 'url')).toBeUndefined();
      expect(() => readText(context({ url: { a: 1 } }), 'url')).toThrow(
        'CDK context "url" must be text, got {"a":1}',
      );
    });
  });
});
