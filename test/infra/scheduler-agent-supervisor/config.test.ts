import { PLATFORM_PROFILES, PROFILE_NAMES } from '../../../lib/platform/config';
import { clientAdmissionCaps, clientShares } from '../../../lib/scheduler-agent-supervisor/client-shares';
import {
  type DeploymentConfig,
  loadConfig,
  SAS_PROFILES,
  type SasSettings,
  validateSasSettings,
} from '../../../lib/scheduler-agent-supervisor/config';

describe('loadConfig (the platform profile and this wing’s settings)', () => {
  const broken = (change: (timings: SasSettings['timings']) => SasSettings['timings']): SasSettings => {
    const base: DeploymentConfig = loadConfig('default');
    return { ...base, timings: change({ ...base.timings }) };
  };

  it('uses the default profile when none is given', () => {
    expect(loadConfig(undefined).profile).toBe('default');
  });

  it('loads the local profile', () => {
    expect(loadConfig('local')).toMatchObject({ profile: 'local', retainData: false });
  });

  it('merges the platform settings with the wing settings of the same profile', () => {
    expect(loadConfig('default')).toEqual({
      profile: 'default',
      ...PLATFORM_PROFILES.default,
      ...SAS_PROFILES.default,
    });
  });

  it('has valid settings for every platform profile', () => {
    expect(Object.keys(SAS_PROFILES).sort()).toEqual([...PROFILE_NAMES].sort());
    for (const profile of PROFILE_NAMES) expect(() => loadConfig(profile)).not.toThrow();
  });

  it('fails when the profile is unknown, naming it and the known ones', () => {
    expect(() => loadConfig('staging')).toThrow(
      'Unknown profile \'staging\' (CDK context "profile"). Known profiles: default, local',
    );
  });

  it('fails when the heartbeat is not below the step timeout', () => {
    expect(() =>
      validateSasSettings(
        'broken',
        broken((t) => ({ ...t, stepHeartbeatSeconds: t.stepTimeoutSeconds })),
      ),
    ).toThrow(
      /Profile 'broken' has invalid timings: stepHeartbeatSeconds: must be below stepTimeoutSeconds \(120\)/,
    );
  });

  it('fails when the heartbeat exceeds the step timeout', () => {
    expect(() =>
      validateSasSettings(
        'broken',
        broken((t) => ({ ...t, stepHeartbeatSeconds: t.stepTimeoutSeconds + 1 })),
      ),
    ).toThrow(/stepHeartbeatSeconds: must be below stepTimeoutSeconds/);
  });

  it('fails when the due shard count is out of range', () => {
    expect(() => validateSasSettings('broken', { ...loadConfig('default'), dueShardCount: 0 })).toThrow(
      /dueShardCount must be an integer from 1 to 64, got 0/,
    );
  });

  it.each([1, 1001, 2.5])(
    'fails when agentMaxConcurrency is %p (MaximumConcurrency is 2 to 1000)',
    (value) => {
      expect(() =>
        validateSasSettings('broken', { ...loadConfig('default'), agentMaxConcurrency: value }),
      ).toThrow(
        `Profile 'broken': agentMaxConcurrency must be an integer from 2 to 1000 (SQS event source MaximumConcurrency), got ${value}`,
      );
    },
  );

  it('fails when a supervisor run could outlast its schedule', () => {
    expect(() =>
      validateSasSettings(
        'broken',
        broken((t) => ({ ...t, supervisorBudgetSeconds: t.supervisorRateSeconds + 30 })),
      ),
    ).toThrow("Profile 'broken': supervisorBudgetSeconds must leave the run shorter than its schedule");
  });

  it.each([0, 2.5, 1001])('fails when the retry budget is %p calls per operation', (callsPerOperation) => {
    expect(() =>
      validateSasSettings('broken', { ...loadConfig('default'), retryBudget: { callsPerOperation } }),
    ).toThrow(
      `Profile 'broken': the retry budget (calls per operation) must be an integer from 1 to 1000, got ${callsPerOperation}`,
    );
  });
});

describe("clients' shares of the stage throttle and of admission", () => {
  const withClients = (clients: SasSettings['clients']): SasSettings => ({ ...loadConfig('local'), clients });
  const client = (name: string, shares: { throttleShare?: number; admissionShare?: number } = {}) => ({
    name,
    principal: `arn:aws:iam::{account}:user/${name}`,
    ...shares,
  });

  it('gives clients that state no share an equal split of what the stated ones leave', () => {
    expect(
      clientShares('p', [client('a', { throttleShare: 50 }), client('b'), client('c')], 'throttleShare'),
    ).toEqual({
      a: 50,
      b: 25,
      c: 25,
    });
    expect(clientShares('p', [client('a'), client('b')], 'admissionShare')).toEqual({ a: 50, b: 50 });
  });

  it.each([
    [
      [client('a', { throttleShare: 80 }), client('b', { throttleShare: 30 })],
      /throttleShare\): the clients' shares add up to 110 %/,
    ],
    [
      [client('a', { throttleShare: 0 }), client('b')],
      /client 'a' needs a share above 0 and at most 100 %, got 0/,
    ],
    [[client('a', { admissionShare: 100 }), client('b')], /leaving nothing to client 'b', which states none/],
    [
      [client('a', { admissionShare: 0.1 }), client('b')],
      /client 'a' has an admissionShare of 0.1 % of the admission limit 200: less than one slot/,
    ],
  ])('fails the profile naming the client: %#', (clients, message) => {
    expect(() => validateSasSettings('broken', withClients(clients))).toThrow(message);
  });

  it("caps each client's in-flight orders at its share of the limit, rounded down", () => {
    expect(clientAdmissionCaps('p', 10, { a: 33.3, b: 66.7 })).toEqual({ a: 3, b: 6 });
    expect(clientAdmissionCaps('p', 200, { a: 50, b: 50 })).toEqual({ a: 100, b: 100 });
  });
});
