import type { Node } from 'constructs';

/**
 * Deployment profiles, one per target, chosen with CDK context `profile`:
 *   cdk deploy                    -> "default": an AWS account (windows in minutes, data retained)
 *   cdk synth -c profile=local    -> "local":   the local runtime, LocalStack, CI (seconds, nothing kept)
 * The platform owns the profile names and the settings every wing shares. Each wing keeps its own
 * settings in a `Readonly<Record<ProfileName, ...>>` next to its stack, so a wing adds settings
 * without touching another, and a new profile does not compile until every wing defines it.
 */
export const PROFILE_NAMES = ['default', 'local'] as const;
export type ProfileName = (typeof PROFILE_NAMES)[number];

/** The profile of a deployment that names none (`cdk deploy`). */
export const DEFAULT_PROFILE: ProfileName = 'default';

/** CDK context keys the platform reads (wings read their own; see their config). */
export const PlatformContextKey = {
  /** The deployment profile (PROFILE_NAMES). */
  Profile: 'profile',
  /**
   * `true` deploys the fake downstream services on a profile that does not by default, for a demo
   * or the acceptance suite against AWS.
   */
  Demo: 'demo',
} as const;

/** Settings every wing reads from the profile. */
export interface PlatformSettings {
  /** CloudWatch Logs retention of every log group, in days (a CloudWatch retention period). */
  readonly logRetentionDays: number;
  /** Whether stateful resources (tables, queues, keys, log groups) survive stack deletion. */
  readonly retainData: boolean;
  /**
   * Whether the profile targets an emulator (the local runtime, LocalStack) rather than an AWS
   * account: the fake downstream services are deployed unless real ones are named, and plain
   * http endpoints are accepted.
   */
  readonly emulated: boolean;
  /**
   * Period of the CloudWatch alarms and dashboard graphs, in seconds: a minute on AWS; 10 s where
   * the local runtime evaluates the alarms, so a test sees one fire in seconds (every custom
   * metric is high resolution: lambdas/shared/observability.ts).
   */
  readonly alarmPeriodSeconds: number;
  /**
   * Requests one client IP may send to an API stage in 5 minutes before the stage's WAF web ACL
   * (a rate-based rule) blocks it; undefined: no web ACL. Off where WAF is not emulated (the local
   * runtime, LocalStack): there the stage throttling and usage plan are the only request limits.
   */
  readonly apiRateLimitPerIp: number | undefined;
  /**
   * Whether the functions send X-Ray traces (active tracing, Powertools' Tracer on). Off where no
   * X-Ray takes them (the local runtime): the functions then set POWERTOOLS_TRACE_ENABLED=false and
   * do not even load the X-Ray SDK at cold start (lambdas/shared/tracing.ts).
   */
  readonly tracing: boolean;
}

export const PLATFORM_PROFILES: Readonly<Record<ProfileName, PlatformSettings>> = {
  // 3000 per 5 minutes is 10 requests a second from one address: a fifth of the submission stage's
  // steady rate, so one address alone cannot use the whole stage.
  default: {
    logRetentionDays: 30,
    retainData: true,
    emulated: false,
    alarmPeriodSeconds: 60,
    apiRateLimitPerIp: 3000,
    tracing: true,
  },
  local: {
    logRetentionDays: 7,
    retainData: false,
    emulated: true,
    alarmPeriodSeconds: 10,
    apiRateLimitPerIp: undefined,
    tracing: false,
  },
};

export interface PlatformConfig extends PlatformSettings {
  readonly profile: ProfileName;
}

/** The profile named by context (the default when none is); throws naming an unknown one. */
export function resolveProfileName(name: unknown): ProfileName {
  if (name === undefined) return DEFAULT_PROFILE;
  if (typeof name === 'string' && (PROFILE_NAMES as readonly string[]).includes(name)) {
    return name as ProfileName;
  }
  throw new Error(
    `Unknown profile '${String(name)}' (CDK context "${PlatformContextKey.Profile}"). Known profiles: ${PROFILE_NAMES.join(', ')}`,
  );
}

/** `text` as a profile's name; throws naming `what` (a flag, a context key) and the known names. */
export function profileNamed(text: string, what: string): ProfileName {
  if ((PROFILE_NAMES as readonly string[]).includes(text)) return text as ProfileName;
  throw new Error(`${what} must name a profile (${PROFILE_NAMES.join(', ')}), got ${JSON.stringify(text)}`);
}

export function loadPlatformConfig(profileName: unknown): PlatformConfig {
  const profile = resolveProfileName(profileName);
  return { profile, ...PLATFORM_PROFILES[profile] };
}

/** Reads deployment choices: CDK context (`-c key=value`, cdk.json), by key. */
export type ContextReader = (key: string) => unknown;

export function contextOf(node: Node): ContextReader {
  return (key) => node.tryGetContext(key);
}

/**
 * A yes/no context value: `true`/`false` from cdk.json, `"true"`/`"false"` from `-c`; absent is
 * false. Anything else throws naming the key, so a typo never silently means "no".
 */
export function readFlag(context: ContextReader, key: string): boolean {
  const value = context(key);
  if (value === undefined || value === false || value === 'false') return false;
  if (value === true || value === 'true') return true;
  throw new Error(`CDK context "${key}" must be true or false, got ${JSON.stringify(value)}`);
}

/** A text context value; absent or empty is undefined. Anything but text throws naming the key. */
export function readText(context: ContextReader, key: string): string | undefined {
  const value = context(key);
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string') {
    throw new Error(`CDK context "${key}" must be text, got ${JSON.stringify(value)}`);
  }
  return value;
}
