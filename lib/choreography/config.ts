import type * as z from 'zod';
import {
  type ConsumerSettings,
  ConsumerSettingsSchema,
  type DeliverySettings,
  DeliverySettingsSchema,
  type DroneSchedulerSettings,
  DroneSchedulerSettingsSchema,
  type FlightSettings,
  FlightSettingsSchema,
  type PackageSettings,
  PackageSettingsSchema,
  REQUESTER_NAME_PATTERN,
  type RemediationSettings,
  RemediationSettingsSchema,
} from '../../lambdas/choreography/contracts';
import { loadPlatformConfig, type PlatformConfig, type ProfileName } from '../platform/config';

/** How Lambda reads one consumer queue: batches, concurrency, and the time each message may take. */
export interface ConsumerTuning {
  /** Messages per invocation (1-10: FIFO queues take no batching window). */
  readonly batchSize: number;
  /**
   * Most concurrent invocations the queue's event source starts (2-1000): the storm guard, so a
   * burst (a redrive, a backlog) cannot take the account's concurrency or the table's capacity.
   */
  readonly maxConcurrency: number;
  /**
   * Time budget of one message. The function timeout is this times the batch size (a FIFO batch is
   * processed in order, one message after another); the queue's visibility timeout is
   * VISIBILITY_TO_TIMEOUT_RATIO times the function timeout.
   */
  readonly secondsPerMessage: number;
}

/** How each outbox relay reads its table's stream. */
export interface RelayTuning {
  /** Stream records per invocation (1-10). */
  readonly batchSize: number;
  /** Retries of a failing batch (bisected each time) before it goes to the relay DLQ (0-10). */
  readonly retryAttempts: number;
  /** Records older than this go to the relay DLQ unpublished (60-604800 s). */
  readonly maxRecordAgeSeconds: number;
  /** Function timeout (3-900 s). */
  readonly timeoutSeconds: number;
}

/**
 * This wing's settings per deployment profile (the profiles and the settings every wing shares are
 * the platform's: lib/platform/config.ts). The service settings are the objects of
 * lambdas/choreography/contracts/settings.ts, handed to each handler as SERVICE_SETTINGS.
 */
export interface ChoreographySettings {
  readonly ingestion: ConsumerSettings;
  readonly package: PackageSettings;
  readonly droneScheduler: DroneSchedulerSettings;
  readonly delivery: DeliverySettings;
  readonly remediation: RemediationSettings;
  /** The fake drone fleet's flights (deployed on emulated profiles and with `-c demo=true`). */
  readonly flight: FlightSettings;
  /** Every service consumer queue (package, drone scheduler, delivery, ingestion projection). */
  readonly consumer: ConsumerTuning;
  /** The remediation consumer of the dead-letter queues. */
  readonly remediationConsumer: ConsumerTuning;
  readonly relay: RelayTuning;
  /** How long an unconsumed message stays on a consumer queue (60 s to 14 days). */
  readonly messageRetentionSeconds: number;
  /** Stage throttling of the delivery API (steady requests per second and burst), also its usage plan's. */
  readonly apiThrottle: { readonly rateLimit: number; readonly burstLimit: number };
  /**
   * The delivery requesters (client applications), as the orders' clients: each gets its own API key
   * and sees only its own deliveries. The first is the one the tooling uses when it names none.
   */
  readonly requesters: readonly string[];
}

const HOUR = 3_600;
const DAY = 24 * HOUR;

export const CHOREOGRAPHY_PROFILES: Readonly<Record<ProfileName, ChoreographySettings>> = {
  default: {
    ingestion: { maxReceiveAttempts: 3, processedMessageTtlSeconds: 7 * DAY },
    package: { maxReceiveAttempts: 3, processedMessageTtlSeconds: 7 * DAY, maxPayloadGrams: 5_000 },
    droneScheduler: {
      maxReceiveAttempts: 3,
      processedMessageTtlSeconds: 7 * DAY,
      drones: Array.from({ length: 10 }, (_, index) => `drone-${String(index + 1).padStart(2, '0')}`),
      maxRangeKm: 15,
      assignmentSeconds: 45 * 60,
      pivotDelaySeconds: 30 * 60,
    },
    delivery: { maxReceiveAttempts: 3, processedMessageTtlSeconds: 7 * DAY, expectedFlightSeconds: 20 * 60 },
    // A deferred RETRY/PIVOT is received again after its back-off: room for deferrals in the count.
    remediation: {
      maxReceiveAttempts: 6,
      processedMessageTtlSeconds: 7 * DAY,
      retryBaseSeconds: 60,
      retryMaxSeconds: 15 * 60,
    },
    flight: { pickupMillis: 60_000, flightMillis: 180_000, failingDeliveryPrefix: 'fail-flight-' },
    consumer: { batchSize: 10, maxConcurrency: 10, secondsPerMessage: 3 },
    remediationConsumer: { batchSize: 10, maxConcurrency: 2, secondsPerMessage: 3 },
    relay: { batchSize: 10, retryAttempts: 8, maxRecordAgeSeconds: DAY, timeoutSeconds: 30 },
    messageRetentionSeconds: 4 * DAY,
    apiThrottle: { rateLimit: 50, burstLimit: 100 },
    requesters: ['pharmacy', 'bakery'],
  },
  local: {
    ingestion: { maxReceiveAttempts: 3, processedMessageTtlSeconds: HOUR },
    package: { maxReceiveAttempts: 3, processedMessageTtlSeconds: HOUR, maxPayloadGrams: 5_000 },
    droneScheduler: {
      maxReceiveAttempts: 3,
      processedMessageTtlSeconds: HOUR,
      drones: ['drone-1', 'drone-2', 'drone-3'],
      maxRangeKm: 15,
      assignmentSeconds: 30,
      pivotDelaySeconds: 5,
    },
    delivery: { maxReceiveAttempts: 3, processedMessageTtlSeconds: HOUR, expectedFlightSeconds: 3 },
    remediation: {
      maxReceiveAttempts: 6,
      processedMessageTtlSeconds: HOUR,
      retryBaseSeconds: 1,
      retryMaxSeconds: 4,
    },
    flight: { pickupMillis: 500, flightMillis: 1_500, failingDeliveryPrefix: 'fail-flight-' },
    consumer: { batchSize: 10, maxConcurrency: 2, secondsPerMessage: 2 },
    remediationConsumer: { batchSize: 10, maxConcurrency: 2, secondsPerMessage: 2 },
    relay: { batchSize: 10, retryAttempts: 3, maxRecordAgeSeconds: 300, timeoutSeconds: 20 },
    messageRetentionSeconds: HOUR,
    apiThrottle: { rateLimit: 200, burstLimit: 400 },
    requesters: ['pharmacy', 'bakery'],
  },
};

/** A profile as this wing's stack reads it: the platform's settings and the wing's. */
export interface ChoreographyConfig extends PlatformConfig, ChoreographySettings {}

/** Resolves and validates a profile by name; throws naming the unknown profile or the bad values. */
export function loadChoreographyConfig(profileName: unknown): ChoreographyConfig {
  const platform = loadPlatformConfig(profileName);
  const settings = CHOREOGRAPHY_PROFILES[platform.profile];
  validateChoreographySettings(platform.profile, settings);
  return { ...platform, ...settings };
}

/** Function timeout of a consumer: its per-message budget times its batch size. */
export function consumerTimeoutSeconds(tuning: ConsumerTuning): number {
  return tuning.secondsPerMessage * tuning.batchSize;
}

/** Throws naming the profile and every setting at fault. */
export function validateChoreographySettings(profile: string, settings: ChoreographySettings): void {
  const problems: string[] = [];
  const check = (name: string, schema: z.ZodType, value: unknown) => {
    const result = schema.safeParse(value);
    if (!result.success) {
      for (const issue of result.error.issues)
        problems.push(`${name}.${issue.path.join('.')}: ${issue.message}`);
    }
  };
  check('ingestion', ConsumerSettingsSchema.strict(), settings.ingestion);
  check('package', PackageSettingsSchema.strict(), settings.package);
  check('droneScheduler', DroneSchedulerSettingsSchema.strict(), settings.droneScheduler);
  check('delivery', DeliverySettingsSchema.strict(), settings.delivery);
  check('remediation', RemediationSettingsSchema.strict(), settings.remediation);
  check('flight', FlightSettingsSchema.strict(), settings.flight);

  const within = (name: string, value: number, min: number, max: number) => {
    if (!Number.isInteger(value) || value < min || value > max) {
      problems.push(`${name} must be an integer from ${min} to ${max}, got ${value}`);
    }
  };
  for (const [name, tuning] of [
    ['consumer', settings.consumer],
    ['remediationConsumer', settings.remediationConsumer],
  ] as const) {
    within(`${name}.batchSize`, tuning.batchSize, 1, 10);
    within(`${name}.maxConcurrency`, tuning.maxConcurrency, 2, 1000);
    within(`${name}.secondsPerMessage`, tuning.secondsPerMessage, 1, 90);
    within(
      `${name} function timeout (secondsPerMessage x batchSize)`,
      consumerTimeoutSeconds(tuning),
      3,
      900,
    );
  }
  within('relay.batchSize', settings.relay.batchSize, 1, 10);
  within('relay.retryAttempts', settings.relay.retryAttempts, 0, 10);
  within('relay.maxRecordAgeSeconds', settings.relay.maxRecordAgeSeconds, 60, 604_800);
  within('relay.timeoutSeconds', settings.relay.timeoutSeconds, 3, 900);
  within('messageRetentionSeconds', settings.messageRetentionSeconds, 60, 14 * DAY);
  const { rateLimit, burstLimit } = settings.apiThrottle;
  if (!(rateLimit > 0) || !Number.isInteger(burstLimit) || burstLimit < rateLimit) {
    problems.push(
      `apiThrottle needs rateLimit > 0 and an integer burstLimit >= rateLimit, got ${rateLimit}/${burstLimit}`,
    );
  }
  if (
    settings.requesters.length === 0 ||
    new Set(settings.requesters).size !== settings.requesters.length ||
    settings.requesters.some((name) => !REQUESTER_NAME_PATTERN.test(name))
  ) {
    problems.push(
      `requesters must be one or more distinct names matching ${REQUESTER_NAME_PATTERN}, got ${JSON.stringify(settings.requesters)}`,
    );
  }
  if (settings.remediation.retryMaxSeconds < settings.remediation.retryBaseSeconds) {
    problems.push('remediation.retryMaxSeconds must be at least retryBaseSeconds');
  }
  if (problems.length > 0) {
    throw new Error(`Profile '${profile}' has invalid choreography settings: ${problems.join('; ')}`);
  }
}
