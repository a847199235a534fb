/**
 * Queue attributes: which exist, their ranges and defaults (CreateQueue / SetQueueAttributes in the
 * SQS API reference), validation with the errors AWS answers, and the redrive policy.
 */
import { SqsErrors } from './errors';
import { DEFAULT_MAXIMUM_MESSAGE_SIZE, MAX_MESSAGE_BYTES, MIN_MAXIMUM_MESSAGE_SIZE } from './limits';

export const FIFO_SUFFIX = '.fifo';

interface IntegerAttribute {
  readonly min: number;
  readonly max: number;
  readonly default?: number;
}

const INTEGER_ATTRIBUTES: Readonly<Record<string, IntegerAttribute>> = {
  DelaySeconds: { min: 0, max: 900, default: 0 },
  MaximumMessageSize: {
    min: MIN_MAXIMUM_MESSAGE_SIZE,
    max: MAX_MESSAGE_BYTES,
    default: DEFAULT_MAXIMUM_MESSAGE_SIZE,
  },
  MessageRetentionPeriod: { min: 60, max: 1_209_600, default: 345_600 },
  ReceiveMessageWaitTimeSeconds: { min: 0, max: 20, default: 0 },
  VisibilityTimeout: { min: 0, max: 43_200, default: 30 },
  KmsDataKeyReusePeriodSeconds: { min: 60, max: 86_400 },
};

const BOOLEAN_ATTRIBUTES = ['FifoQueue', 'ContentBasedDeduplication', 'SqsManagedSseEnabled'];
const FIFO_ONLY_ATTRIBUTES = ['ContentBasedDeduplication', 'DeduplicationScope', 'FifoThroughputLimit'];
const ENUM_ATTRIBUTES: Readonly<Record<string, readonly string[]>> = {
  DeduplicationScope: ['messageGroup', 'queue'],
  FifoThroughputLimit: ['perQueue', 'perMessageGroupId'],
};
/** Stored as given (validated as JSON where AWS does); they have no effect locally. */
const OPAQUE_ATTRIBUTES = ['Policy', 'KmsMasterKeyId', 'RedriveAllowPolicy'];

/** Read-only attributes GetQueueAttributes computes. */
export const COMPUTED_ATTRIBUTES = [
  'ApproximateNumberOfMessages',
  'ApproximateNumberOfMessagesNotVisible',
  'ApproximateNumberOfMessagesDelayed',
  'CreatedTimestamp',
  'LastModifiedTimestamp',
  'QueueArn',
] as const;

const SETTABLE_ATTRIBUTES = [
  ...Object.keys(INTEGER_ATTRIBUTES),
  ...BOOLEAN_ATTRIBUTES,
  ...Object.keys(ENUM_ATTRIBUTES),
  ...OPAQUE_ATTRIBUTES,
  'RedrivePolicy',
];

export const ALL_ATTRIBUTE_NAMES: readonly string[] = [...SETTABLE_ATTRIBUTES, ...COMPUTED_ATTRIBUTES];

export interface RedrivePolicy {
  readonly deadLetterTargetArn: string;
  readonly maxReceiveCount: number;
}

export function isFifoName(queueName: string): boolean {
  return queueName.endsWith(FIFO_SUFFIX);
}

export function validateQueueName(queueName: unknown): string {
  if (typeof queueName !== 'string' || queueName === '') throw SqsErrors.missingParameter('QueueName');
  const base = isFifoName(queueName) ? queueName.slice(0, -FIFO_SUFFIX.length) : queueName;
  if (queueName.length > 80 || !/^[A-Za-z0-9_-]+$/.test(base)) {
    throw SqsErrors.invalidParameterValue(
      'Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length',
    );
  }
  return queueName;
}

function invalidValue(name: string): Error {
  return SqsErrors.invalidAttributeValue(`Invalid value for the parameter ${name}.`);
}

/**
 * Validates and normalizes attributes given to CreateQueue (`creating`) or SetQueueAttributes for a
 * queue of the given kind. Returns them in the form GetQueueAttributes answers.
 */
export function normalizeAttributes(
  given: Readonly<Record<string, unknown>>,
  context: { readonly fifo: boolean; readonly creating: boolean },
): Record<string, string> {
  const normalized: Record<string, string> = {};
  for (const [name, raw] of Object.entries(given)) {
    const value = typeof raw === 'string' ? raw : String(raw);
    if (!SETTABLE_ATTRIBUTES.includes(name)) throw SqsErrors.invalidAttributeName(name);
    if (FIFO_ONLY_ATTRIBUTES.includes(name) && !context.fifo) throw SqsErrors.invalidAttributeName(name);
    if (name === 'FifoQueue' && !context.creating) throw SqsErrors.invalidAttributeName(name);
    const integer = INTEGER_ATTRIBUTES[name];
    if (integer) {
      const parsed = Number(value);
      if (!/^\s*-?\d+\s*$/.test(value) || parsed < integer.min || parsed > integer.max)
        throw invalidValue(name);
      normalized[name] = String(parsed);
    } else if (BOOLEAN_ATTRIBUTES.includes(name)) {
      const lower = value.toLowerCase();
      if (lower !== 'true' && lower !== 'false') throw invalidValue(name);
      normalized[name] = lower;
    } else if (ENUM_ATTRIBUTES[name]) {
      if (!ENUM_ATTRIBUTES[name].includes(value)) throw invalidValue(name);
      normalized[name] = value;
    } else if (name === 'RedrivePolicy') {
      normalized[name] = value === '' ? '' : JSON.stringify(parseRedrivePolicy(value));
    } else {
      if ((name === 'Policy' || name === 'RedriveAllowPolicy') && value !== '') {
        try {
          JSON.parse(value);
        } catch {
          throw invalidValue(name);
        }
      }
      normalized[name] = value;
    }
  }
  if (normalized.FifoQueue === 'false' && context.fifo) throw invalidValue('FifoQueue');
  if (normalized.FifoThroughputLimit === 'perMessageGroupId' && normalized.DeduplicationScope === 'queue') {
    throw SqsErrors.invalidAttributeValue(
      'The perMessageGroupId value is allowed only when the value for DeduplicationScope is messageGroup.',
    );
  }
  return normalized;
}

/** Attribute values of a new queue: the defaults, overridden by what was given. */
export function initialAttributes(
  given: Readonly<Record<string, string>>,
  fifo: boolean,
): Record<string, string> {
  const attributes: Record<string, string> = {};
  for (const [name, spec] of Object.entries(INTEGER_ATTRIBUTES)) {
    if (spec.default !== undefined) attributes[name] = String(spec.default);
  }
  // New queues get SQS-managed encryption unless a KMS key is named (AWS's default since 2022).
  attributes.SqsManagedSseEnabled = given.KmsMasterKeyId ? 'false' : 'true';
  if (given.KmsMasterKeyId) attributes.KmsDataKeyReusePeriodSeconds = '300';
  if (fifo) {
    Object.assign(attributes, {
      FifoQueue: 'true',
      ContentBasedDeduplication: 'false',
      DeduplicationScope: 'queue',
      FifoThroughputLimit: 'perQueue',
    });
  }
  Object.assign(attributes, given);
  if (attributes.RedrivePolicy === '') delete attributes.RedrivePolicy;
  // AWS lists FifoQueue only for FIFO queues.
  if (!fifo) delete attributes.FifoQueue;
  return attributes;
}

export function parseRedrivePolicy(text: string): RedrivePolicy {
  const reason = (why: string) =>
    SqsErrors.invalidParameterValue(`Value ${text} for parameter RedrivePolicy is invalid. Reason: ${why}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw reason('Redrive policy is not a valid JSON map.');
  }
  const policy = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as Record<string, unknown>;
  const target = policy.deadLetterTargetArn;
  const count = Number(policy.maxReceiveCount);
  if (typeof target !== 'string' || !target.startsWith('arn:')) {
    throw reason('Invalid value for deadLetterTargetArn.');
  }
  if (!Number.isInteger(count) || count < 1 || count > 1000) {
    throw reason('Invalid value for maxReceiveCount.');
  }
  return { deadLetterTargetArn: target, maxReceiveCount: count };
}
