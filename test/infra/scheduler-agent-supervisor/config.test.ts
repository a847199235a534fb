import { type DeploymentConfig, loadConfig, PROFILES } from '../../../lib/scheduler-agent-supervisor/config';

describe('loadConfig', () => {
  const profiles = PROFILES as Record<string, DeploymentConfig>;
  const withProfile = (name: string, config: DeploymentConfig, run: () => void): void => {
    profiles[name] = config;
    try {
      run();
    } finally {
      delete profiles[name];
    }
  };
  const broken = (
    change: (timings: DeploymentConfig['timings']) => DeploymentConfig['timings'],
  ): DeploymentConfig => {
    const base = loadConfig('default');
    return { ...base, profile: 'broken', timings: change({ ...base.timings }) };
  };

  it('uses the default profile when none is given', () => {
    expect(loadConfig(undefined).profile).toBe('default');
  });

  it('loads the local profile', () => {
    expect(loadConfig('local')).toMatchObject({ profile: 'local', retainData: false });
  });

  it('fails when the profile is unknown, naming it and the known ones', () => {
    expect(() => loadConfig('staging')).toThrow(
      'Unknown profile \'staging\' (CDK context "profile"). Known profiles: default, local',
    );
  });

  it('fails when the heartbeat is not below the step timeout', () => {
    withProfile(
      'broken',
      broken((t) => ({ ...t, stepHeartbeatSeconds: t.stepTimeoutSeconds })),
      () => {
        expect(() => loadConfig('broken')).toThrow(
          /Profile 'broken' has invalid timings: stepHeartbeatSeconds: must be below stepTimeoutSeconds \(120\)/,
        );
      },
    );
  });

  it('fails when the heartbeat exceeds the step timeout', () => {
    withProfile(
      'broken',
      broken((t) => ({ ...t, stepHeartbeatSeconds: t.stepTimeoutSeconds + 1 })),
      () => {
        expect(() => loadConfig('broken')).toThrow(/stepHeartbeatSeconds: must be below stepTimeoutSeconds/);
      },
    );
  });

  it('fails when the due shard count is out of range', () => {
    withProfile('broken', { ...loadConfig('default'), profile: 'broken', dueShardCount: 0 }, () => {
      expect(() => loadConfig('broken')).toThrow(/dueShardCount must be an integer from 1 to 64, got 0/);
    });
  });
});
