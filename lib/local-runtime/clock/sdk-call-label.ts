/**
 * What a seeded clock's order and trace call an SDK call of the runtime's own: its command and the
 * resource it addresses, read from the input fields that name one, without the run's random parts
 * (a queue URL's host and port, a shard iterator's position): the same call gets the same label in
 * every run.
 */
import { createHash } from 'node:crypto';

/** Input fields that name the resource a call addresses, in the order they are looked for. */
const RESOURCE_FIELDS = [
  'QueueUrl',
  'TableName',
  'StreamArn',
  'FunctionName',
  'stateMachineArn',
  'executionArn',
  'TopicArn',
  'EventBusName',
  'Namespace',
] as const;

export function sdkCallLabel(commandName: string | undefined, input: unknown): string {
  const command = (commandName ?? 'call').replace(/Command$/, '');
  return `sdk ${command}${addressed(input)} ${digestOf(input)}`;
}

function addressed(input: unknown): string {
  const fields = typeof input === 'object' && input !== null ? (input as Record<string, unknown>) : {};
  const named = RESOURCE_FIELDS.map((field) => fields[field]).find((value) => typeof value === 'string');
  if (typeof named === 'string') return ` ${resourceName(named)}`;
  const iterator = fields.ShardIterator;
  return typeof iterator === 'string' ? ` ${shardOf(iterator)}` : '';
}

/**
 * Eight hex digits of the input's digest: two calls of one actor on one resource at once (two
 * executions updating the same table) differ by what they send, which a seeded run mints alike.
 * A shard iterator's position is left out (DynamoDB Local's own), and so are the loopback ports a
 * URL names (each run listens on free ports).
 */
function digestOf(input: unknown): string {
  const text = JSON.stringify(input, (key, value) => (key === 'ShardIterator' ? undefined : value)) ?? '';
  const portless = withoutStreamLabel(text.replace(LOOPBACK_ORIGIN, 'http://loopback'));
  return createHash('sha256').update(portless).digest('hex').slice(0, 8);
}

const LOOPBACK_ORIGIN = /https?:\/\/(?:127\.0\.0\.1|localhost|\[::1\]):\d+/g;

/**
 * A queue URL by its path (account and name); a stream's ARN without its label (DynamoDB Local
 * labels a stream with the machine's time of its creation) and a shard without its id; anything
 * else as it is.
 */
function resourceName(value: string): string {
  return value.startsWith('http') ? new URL(value).pathname : withoutStreamLabel(value);
}

const STREAM_LABEL = /\/stream\/\d{4}-\d\d-\d\dT[\d:.]+/g;
/** DynamoDB Local's shard ids carry the machine's time too. */
const SHARD_ID = /shardId-[0-9A-Za-z-]+/g;

function withoutStreamLabel(value: string): string {
  return value.replace(STREAM_LABEL, '/stream').replace(SHARD_ID, 'shardId');
}

/** DynamoDB Local's iterators start with the stream's ARN and shard: what a call reads from. */
function shardOf(iterator: string): string {
  return withoutStreamLabel(iterator.split('|').slice(0, 2).join('|'));
}
