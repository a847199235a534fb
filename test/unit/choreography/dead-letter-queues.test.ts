import {
  DeadLetterQueues,
  readDeadLetterQueues,
} from '../../../lambdas/choreography/adapters/dead-letter-queues';
import { deadLetterKeyOf } from '../../../lambdas/choreography/adapters/remediation-consumer';
import { ChoreographyEnvKey } from '../../../lambdas/choreography/contracts';

const env = (value: string) => ({ [ChoreographyEnvKey.DeadLetterQueueUrls]: value });

describe('DEAD_LETTER_QUEUE_URLS', () => {
  const urls = {
    package: 'https://sqs.eu-west-1.amazonaws.com/123456789012/package-dlq.fifo',
    'drone-scheduler': 'http://127.0.0.1:4566/000000000000/drone-dlq.fifo',
  };

  it('finds the source and the URL of a record by the queue name in its eventSourceARN', () => {
    const queues = readDeadLetterQueues(env(JSON.stringify(urls)));
    expect(queues.of('arn:aws:sqs:eu-west-1:123456789012:package-dlq.fifo')).toEqual({
      source: 'package',
      queueUrl: urls.package,
    });
    expect(queues.of('arn:aws:sqs:us-east-1:000000000000:drone-dlq.fifo')?.source).toBe('drone-scheduler');
    expect(queues.of('arn:aws:sqs:eu-west-1:123456789012:other.fifo')).toBeUndefined();
  });

  it.each([
    ['not JSON', '{'],
    ['an unknown service', JSON.stringify({ billing: urls.package })],
    ['a value that is no URL', JSON.stringify({ package: 'package-dlq' })],
  ])('fails at load naming the variable for %s', (_, value) => {
    expect(() => readDeadLetterQueues(env(value))).toThrow(/DEAD_LETTER_QUEUE_URLS/);
  });

  it('fails at load when the variable is missing', () => {
    expect(() => readDeadLetterQueues({})).toThrow(
      'Missing required environment variable DEAD_LETTER_QUEUE_URLS',
    );
  });

  it('is usable without the environment', () => {
    expect(new DeadLetterQueues({}).of('arn:aws:sqs:r:1:q.fifo')).toBeUndefined();
  });
});

describe('deadLetterKeyOf', () => {
  it('is the hash of the deduplication id, else of the body', () => {
    const withDedup = deadLetterKeyOf({
      attributes: { MessageDeduplicationId: 'e:1:POISON' } as never,
      body: 'x',
    });
    expect(withDedup).toMatch(/^[0-9a-f]{64}$/);
    expect(
      deadLetterKeyOf({ attributes: { MessageDeduplicationId: 'e:1:POISON' } as never, body: 'y' }),
    ).toBe(withDedup);
    expect(deadLetterKeyOf({ attributes: {} as never, body: 'x' })).not.toBe(withDedup);
  });
});
