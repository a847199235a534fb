/**
 * The runtime's SQS service over the real SDK: queues, standard-queue messages, batches, redrive,
 * long polls and errors, each as the SQS API reference or developer guide states it.
 */
import {
  ChangeMessageVisibilityBatchCommand,
  ChangeMessageVisibilityCommand,
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  DeleteMessageCommand,
  DeleteQueueCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  ListDeadLetterSourceQueuesCommand,
  ListQueuesCommand,
  PurgeQueueCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SetQueueAttributesCommand,
} from '@aws-sdk/client-sqs';
import { type SqsWorld, sleep, startSqsWorld } from './harness';

describe('SQS service: queues and standard queues', () => {
  let world: SqsWorld;
  beforeAll(async () => {
    world = await startSqsWorld();
  });
  afterAll(() => world.stop());

  const attributesOf = async (QueueUrl: string, names: string[] = ['All']) =>
    (await world.sqs.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: names as never })))
      .Attributes ?? {};
  const receive = (QueueUrl: string, extra: Record<string, unknown> = {}) =>
    world.sqs
      .send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0, ...extra }))
      .then((output) => output.Messages ?? []);

  it('answers queue URLs as <endpoint>/<account>/<name>, the form the runtime resolves Ref to', async () => {
    const { QueueUrl } = await world.sqs.send(new CreateQueueCommand({ QueueName: 'url-form' }));
    expect(QueueUrl).toBe(`${world.server.endpoint}/123456789012/url-form`);
    expect(await world.sqs.send(new GetQueueUrlCommand({ QueueName: 'url-form' }))).toMatchObject({
      QueueUrl,
    });
    expect((await attributesOf(QueueUrl ?? '', ['QueueArn'])).QueueArn).toBe(
      'arn:aws:sqs:us-east-1:123456789012:url-form',
    );
  });

  it('CreateQueue returns the existing queue for identical attributes and refuses different ones', async () => {
    // "If you provide the name of an existing queue along with the exact names and values of all the
    // queue's attributes, CreateQueue returns the queue URL for the existing queue. If the queue name,
    // attribute names, or attribute values don't match an existing queue, CreateQueue returns an error."
    const create = (VisibilityTimeout: string) =>
      world.sqs.send(new CreateQueueCommand({ QueueName: 'idempotent', Attributes: { VisibilityTimeout } }));
    const first = await create('45');
    expect((await create('45')).QueueUrl).toBe(first.QueueUrl);
    await expect(create('46')).rejects.toMatchObject({ name: 'QueueNameExists', Code: 'QueueAlreadyExists' });
    expect((await attributesOf(first.QueueUrl ?? '')).VisibilityTimeout).toBe('45');
  });

  it('validates attribute names and values on create and set', async () => {
    const create = (QueueName: string, Attributes: Record<string, string>) =>
      world.sqs.send(new CreateQueueCommand({ QueueName, Attributes }));
    await expect(create('bad-name', { Colour: 'blue' })).rejects.toMatchObject({
      name: 'InvalidAttributeName',
    });
    await expect(create('bad-value', { VisibilityTimeout: '43201' })).rejects.toMatchObject({
      name: 'InvalidAttributeValue',
    });
    await expect(create('bad-delay', { DelaySeconds: '901' })).rejects.toMatchObject({
      name: 'InvalidAttributeValue',
    });
    // FIFO-only attributes on a standard queue, a .fifo name without FifoQueue, and the reverse.
    await expect(create('std', { ContentBasedDeduplication: 'true' })).rejects.toMatchObject({
      name: 'InvalidAttributeName',
    });
    await expect(create('named.fifo', {})).rejects.toMatchObject({ name: 'InvalidParameterValue' });
    await expect(create('not-named', { FifoQueue: 'true' })).rejects.toMatchObject({
      name: 'InvalidParameterValue',
    });
    await expect(create('bad name!', {})).rejects.toMatchObject({ name: 'InvalidParameterValue' });
    const QueueUrl = await world.queue('settable');
    await world.sqs.send(
      new SetQueueAttributesCommand({ QueueUrl, Attributes: { VisibilityTimeout: '7', DelaySeconds: '1' } }),
    );
    expect(await attributesOf(QueueUrl, ['VisibilityTimeout', 'DelaySeconds'])).toEqual({
      VisibilityTimeout: '7',
      DelaySeconds: '1',
    });
    await expect(
      world.sqs.send(new SetQueueAttributesCommand({ QueueUrl, Attributes: { FifoQueue: 'true' } })),
    ).rejects.toMatchObject({ name: 'InvalidAttributeName' });
    await expect(
      world.sqs.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['Nope' as never] })),
    ).rejects.toMatchObject({ name: 'InvalidAttributeName' });
  });

  it('reports the documented defaults and the three message counts', async () => {
    const QueueUrl = await world.queue('counts');
    expect(await attributesOf(QueueUrl)).toMatchObject({
      DelaySeconds: '0',
      MaximumMessageSize: '1048576',
      MessageRetentionPeriod: '345600',
      ReceiveMessageWaitTimeSeconds: '0',
      VisibilityTimeout: '30',
      ApproximateNumberOfMessages: '0',
      ApproximateNumberOfMessagesNotVisible: '0',
      ApproximateNumberOfMessagesDelayed: '0',
      CreatedTimestamp: expect.stringMatching(/^\d{10}$/),
      LastModifiedTimestamp: expect.stringMatching(/^\d{10}$/),
    });
    for (const body of ['visible', 'in-flight']) {
      await world.sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: body }));
    }
    await world.sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'delayed', DelaySeconds: 60 }));
    await receive(QueueUrl, { MaxNumberOfMessages: 1 });
    expect(
      await attributesOf(QueueUrl, [
        'ApproximateNumberOfMessages',
        'ApproximateNumberOfMessagesNotVisible',
        'ApproximateNumberOfMessagesDelayed',
      ]),
    ).toEqual({
      ApproximateNumberOfMessages: '1',
      ApproximateNumberOfMessagesNotVisible: '1',
      ApproximateNumberOfMessagesDelayed: '1',
    });
  });

  it('lists queues by prefix with pagination, and a deleted queue no longer exists', async () => {
    const urls = [
      await world.queue('listed-a'),
      await world.queue('listed-b'),
      await world.queue('listed-c'),
    ];
    const first = await world.sqs.send(new ListQueuesCommand({ QueueNamePrefix: 'listed-', MaxResults: 2 }));
    expect(first.QueueUrls).toEqual(urls.slice(0, 2));
    const second = await world.sqs.send(
      new ListQueuesCommand({ QueueNamePrefix: 'listed-', MaxResults: 2, NextToken: first.NextToken }),
    );
    expect(second).toMatchObject({ QueueUrls: urls.slice(2) });
    expect(second.NextToken).toBeUndefined();
    await world.sqs.send(new DeleteQueueCommand({ QueueUrl: urls[0] }));
    await expect(
      world.sqs.send(new SendMessageCommand({ QueueUrl: urls[0], MessageBody: 'x' })),
    ).rejects.toMatchObject({ name: 'QueueDoesNotExist', Code: 'AWS.SimpleQueueService.NonExistentQueue' });
    await expect(
      world.sqs.send(
        new GetQueueUrlCommand({ QueueName: 'listed-a', QueueOwnerAWSAccountId: '999999999999' }),
      ),
    ).rejects.toMatchObject({ name: 'QueueDoesNotExist' });
  });

  it('round-trips body and attributes with the digests AWS computes (the SDK checks the body MD5)', async () => {
    const QueueUrl = await world.queue('digests');
    const sent = await world.sqs.send(
      new SendMessageCommand({
        QueueUrl,
        MessageBody: 'héllo ✓',
        MessageAttributes: {
          attribName1: { DataType: 'String', StringValue: 'attribValue 1' },
          'trace.id': { DataType: 'String', StringValue: 't-1' },
          'trace.span': { DataType: 'Number', StringValue: '42' },
          blob: { DataType: 'Binary', BinaryValue: Buffer.from([0, 1, 2, 255]) },
        },
        MessageSystemAttributes: { AWSTraceHeader: { DataType: 'String', StringValue: 'Root=1-abc' } },
      }),
    );
    expect(sent.MD5OfMessageAttributes).toMatch(/^[0-9a-f]{32}$/);
    expect(sent.MD5OfMessageSystemAttributes).toMatch(/^[0-9a-f]{32}$/);
    const [all] = await receive(QueueUrl, { MessageAttributeNames: ['All'], VisibilityTimeout: 0 });
    expect(all?.Body).toBe('héllo ✓');
    expect(all?.MD5OfMessageAttributes).toBe(sent.MD5OfMessageAttributes);
    expect(Buffer.from(all?.MessageAttributes?.blob?.BinaryValue ?? []).toJSON().data).toEqual([
      0, 1, 2, 255,
    ]);
    // Only the requested attributes come back, and the digest covers exactly those; for the single
    // String attribute it is the published value for that attribute alone.
    const [one] = await receive(QueueUrl, { MessageAttributeNames: ['attribName1'], VisibilityTimeout: 0 });
    expect(Object.keys(one?.MessageAttributes ?? {})).toEqual(['attribName1']);
    expect(one?.MD5OfMessageAttributes).toBe('19e27d4e946b072f3f58da80d94fd778');
    const [prefixed] = await receive(QueueUrl, { MessageAttributeNames: ['trace.*'], VisibilityTimeout: 0 });
    expect(Object.keys(prefixed?.MessageAttributes ?? {}).sort()).toEqual(['trace.id', 'trace.span']);
    const [none] = await receive(QueueUrl);
    expect(none?.MessageAttributes).toBeUndefined();
    expect(none?.MD5OfMessageAttributes).toBeUndefined();
  });

  it('returns the requested system attributes only', async () => {
    const QueueUrl = await world.queue('system');
    const before = Date.now();
    await world.sqs.send(
      new SendMessageCommand({
        QueueUrl,
        MessageBody: 'x',
        MessageSystemAttributes: { AWSTraceHeader: { DataType: 'String', StringValue: 'Root=1-abc' } },
      }),
    );
    const [first] = await receive(QueueUrl, { MessageSystemAttributeNames: ['All'], VisibilityTimeout: 0 });
    expect(first?.Attributes).toEqual({
      SenderId: '123456789012',
      SentTimestamp: expect.stringMatching(/^\d{13}$/),
      ApproximateReceiveCount: '1',
      ApproximateFirstReceiveTimestamp: expect.stringMatching(/^\d{13}$/),
      AWSTraceHeader: 'Root=1-abc',
    });
    expect(Number(first?.Attributes?.SentTimestamp)).toBeGreaterThanOrEqual(before);
    const [second] = await receive(QueueUrl, {
      MessageSystemAttributeNames: ['ApproximateReceiveCount', 'ApproximateFirstReceiveTimestamp'],
    });
    expect(second?.Attributes).toEqual({
      ApproximateReceiveCount: '2',
      ApproximateFirstReceiveTimestamp: first?.Attributes?.ApproximateFirstReceiveTimestamp,
    });
    // The older parameter name works too.
    await world.sqs.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl,
        ReceiptHandle: second?.ReceiptHandle,
        VisibilityTimeout: 0,
      }),
    );
    const [third] = await receive(QueueUrl, { AttributeNames: ['All'] });
    expect(third?.Attributes?.ApproximateReceiveCount).toBe('3');
    await expect(
      receive(QueueUrl, { MessageSystemAttributeNames: ['Colour' as never] }),
    ).rejects.toMatchObject({ name: 'InvalidAttributeName' });
  });

  it('hides a received message for its visibility timeout; ChangeMessageVisibility shortens or refuses', async () => {
    const QueueUrl = await world.queue('visibility');
    await world.sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'x' }));
    const [message] = await receive(QueueUrl, { VisibilityTimeout: 1 });
    expect(await receive(QueueUrl)).toEqual([]);
    await sleep(1100);
    const [again] = await receive(QueueUrl, { VisibilityTimeout: 30 });
    expect(again?.MessageId).toBe(message?.MessageId);
    expect(again?.ReceiptHandle).not.toBe(message?.ReceiptHandle);
    // The 12-hour limit counts from the receive.
    await expect(
      world.sqs.send(
        new ChangeMessageVisibilityCommand({
          QueueUrl,
          ReceiptHandle: again?.ReceiptHandle,
          VisibilityTimeout: 43_201,
        }),
      ),
    ).rejects.toMatchObject({ name: 'InvalidParameterValue' });
    await world.sqs.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl,
        ReceiptHandle: again?.ReceiptHandle,
        VisibilityTimeout: 0,
      }),
    );
    const [third] = await receive(QueueUrl, { VisibilityTimeout: 0 });
    expect(third?.MessageId).toBe(message?.MessageId);
    // Visible again: not in flight.
    await expect(
      world.sqs.send(
        new ChangeMessageVisibilityCommand({
          QueueUrl,
          ReceiptHandle: third?.ReceiptHandle,
          VisibilityTimeout: 5,
        }),
      ),
    ).rejects.toMatchObject({ name: 'MessageNotInflight' });
  });

  it('delays a message by its own DelaySeconds on a standard queue', async () => {
    const QueueUrl = await world.queue('delay');
    await world.sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'later', DelaySeconds: 1 }));
    await world.sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'now' }));
    expect((await receive(QueueUrl)).map((message) => message.Body)).toEqual(['now']);
    await sleep(1050);
    expect((await receive(QueueUrl)).map((message) => message.Body)).toEqual(['later']);
  });

  it('answers a long poll as soon as a message arrives, and an empty one when its wait ends', async () => {
    const QueueUrl = await world.queue('long-poll');
    const started = Date.now();
    setTimeout(() => void world.sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'arrived' })), 300);
    const messages = await receive(QueueUrl, { WaitTimeSeconds: 20 });
    expect(messages.map((message) => message.Body)).toEqual(['arrived']);
    // Well before the 20 s wait: the answer came with the message.
    expect(Date.now() - started).toBeLessThan(10_000);
    const emptyStarted = Date.now();
    expect(await receive(QueueUrl, { WaitTimeSeconds: 1 })).toEqual([]);
    expect(Date.now() - emptyStarted).toBeGreaterThanOrEqual(950);
    // A message becoming visible again (end of its visibility timeout) also answers a waiting poll.
    await world.sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'returns' }));
    await receive(QueueUrl, { VisibilityTimeout: 1 });
    expect((await receive(QueueUrl, { WaitTimeSeconds: 5 })).map((message) => message.Body)).toEqual([
      'returns',
    ]);
    // ReceiveMessageWaitTimeSeconds is the default wait.
    const waiting = await world.queue('default-wait', { ReceiveMessageWaitTimeSeconds: '1' });
    const defaultStarted = Date.now();
    expect((await world.sqs.send(new ReceiveMessageCommand({ QueueUrl: waiting }))).Messages ?? []).toEqual(
      [],
    );
    expect(Date.now() - defaultStarted).toBeGreaterThanOrEqual(950);
  });

  it('gives nothing to a long poll its client abandoned (the message stays for the next receive)', async () => {
    const QueueUrl = await world.queue('abandoned');
    const abandon = new AbortController();
    const abandoned = world.sqs.send(new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 20 }), {
      abortSignal: abandon.signal,
    });
    await sleep(100);
    abandon.abort();
    await expect(abandoned).rejects.toThrow();
    await sleep(100);
    await world.sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'for the next one' }));
    expect((await receive(QueueUrl)).map((message) => message.Body)).toEqual(['for the next one']);
  });

  it('moves a message to the dead-letter queue when a receive would pass maxReceiveCount', async () => {
    const deadLetterUrl = await world.queue('dlq');
    const { QueueArn: deadLetterArn } = await attributesOf(deadLetterUrl, ['QueueArn']);
    const RedrivePolicy = JSON.stringify({ deadLetterTargetArn: deadLetterArn, maxReceiveCount: 2 });
    const QueueUrl = await world.queue('redriven', { RedrivePolicy, VisibilityTimeout: '0' });
    expect(JSON.parse((await attributesOf(QueueUrl, ['RedrivePolicy'])).RedrivePolicy ?? '{}')).toEqual({
      deadLetterTargetArn: deadLetterArn,
      maxReceiveCount: 2,
    });
    const { MessageId } = await world.sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'poison' }));
    expect((await receive(QueueUrl)).map((message) => message.MessageId)).toEqual([MessageId]);
    expect((await receive(QueueUrl)).map((message) => message.MessageId)).toEqual([MessageId]);
    expect(await receive(QueueUrl)).toEqual([]);
    const [dead] = await receive(deadLetterUrl, { MessageSystemAttributeNames: ['All'] });
    expect(dead).toMatchObject({ MessageId, Body: 'poison' });
    expect(dead?.Attributes?.DeadLetterQueueSourceArn).toBe(
      (await attributesOf(QueueUrl, ['QueueArn'])).QueueArn,
    );
    expect(
      (await world.sqs.send(new ListDeadLetterSourceQueuesCommand({ QueueUrl: deadLetterUrl }))).queueUrls,
    ).toEqual([QueueUrl]);
    // The target must exist and be of the same type.
    const missing = JSON.stringify({ deadLetterTargetArn: `${deadLetterArn}-gone`, maxReceiveCount: 2 });
    await expect(world.queue('no-target', { RedrivePolicy: missing })).rejects.toMatchObject({
      name: 'InvalidParameterValue',
    });
    const tooMany = JSON.stringify({ deadLetterTargetArn: deadLetterArn, maxReceiveCount: 1001 });
    await expect(world.queue('bad-count', { RedrivePolicy: tooMany })).rejects.toMatchObject({
      name: 'InvalidParameterValue',
    });
  });

  it('runs batch entries one by one and refuses malformed batches as a whole', async () => {
    const QueueUrl = await world.queue('batches');
    const sent = await world.sqs.send(
      new SendMessageBatchCommand({
        QueueUrl,
        Entries: [
          { Id: 'ok-1', MessageBody: 'one' },
          { Id: 'bad', MessageBody: 'two', DelaySeconds: 901 },
          {
            Id: 'ok-2',
            MessageBody: 'three',
            MessageAttributes: { a: { DataType: 'String', StringValue: 'x' } },
          },
        ],
      }),
    );
    expect(sent.Successful?.map((entry) => entry.Id)).toEqual(['ok-1', 'ok-2']);
    expect(sent.Failed).toEqual([
      expect.objectContaining({ Id: 'bad', SenderFault: true, Code: 'InvalidParameterValue' }),
    ]);
    const send = (Entries: { Id: string; MessageBody: string }[]) =>
      world.sqs.send(new SendMessageBatchCommand({ QueueUrl, Entries }));
    await expect(send([])).rejects.toMatchObject({ name: 'EmptyBatchRequest' });
    await expect(
      send(Array.from({ length: 11 }, (_, index) => ({ Id: `m${index}`, MessageBody: 'x' }))),
    ).rejects.toMatchObject({ name: 'TooManyEntriesInBatchRequest' });
    await expect(
      send([
        { Id: 'same', MessageBody: 'x' },
        { Id: 'same', MessageBody: 'y' },
      ]),
    ).rejects.toMatchObject({ name: 'BatchEntryIdsNotDistinct' });
    await expect(send([{ Id: 'not valid!', MessageBody: 'x' }])).rejects.toMatchObject({
      name: 'InvalidBatchEntryId',
    });
    const messages = await receive(QueueUrl);
    const changed = await world.sqs.send(
      new ChangeMessageVisibilityBatchCommand({
        QueueUrl,
        Entries: [
          { Id: 'first', ReceiptHandle: messages[0]?.ReceiptHandle, VisibilityTimeout: 0 },
          { Id: 'forged', ReceiptHandle: 'not-a-receipt', VisibilityTimeout: 0 },
        ],
      }),
    );
    expect(changed.Successful).toEqual([{ Id: 'first' }]);
    expect(changed.Failed).toEqual([
      expect.objectContaining({ Id: 'forged', Code: 'ReceiptHandleIsInvalid' }),
    ]);
    const again = await receive(QueueUrl);
    const deleted = await world.sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl,
        Entries: [...messages.slice(1), ...again].map((message, index) => ({
          Id: `d${index}`,
          ReceiptHandle: message.ReceiptHandle,
        })),
      }),
    );
    expect(deleted.Failed).toEqual([]);
    expect(
      await attributesOf(QueueUrl, ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible']),
    ).toEqual({
      ApproximateNumberOfMessages: '0',
      ApproximateNumberOfMessagesNotVisible: '0',
    });
  });

  it('refuses invalid messages and parameters with the named errors', async () => {
    const QueueUrl = await world.queue('refusals', { MaximumMessageSize: '1024' });
    const send = (input: Record<string, unknown>) =>
      world.sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'x', ...input }));
    await expect(send({ MessageBody: 'x'.repeat(1025) })).rejects.toMatchObject({
      name: 'InvalidParameterValue',
    });
    // Attributes count towards the size: name + type + value.
    await expect(
      send({
        MessageBody: 'x'.repeat(1000),
        MessageAttributes: { big: { DataType: 'String', StringValue: 'y'.repeat(20) } },
      }),
    ).rejects.toMatchObject({ name: 'InvalidParameterValue' });
    await expect(send({ MessageBody: 'bell \u0007' })).rejects.toMatchObject({
      name: 'InvalidMessageContents',
    });
    await expect(
      send({
        MessageAttributes: Object.fromEntries(
          Array.from({ length: 11 }, (_, index) => [`a${index}`, { DataType: 'String', StringValue: 'v' }]),
        ),
      }),
    ).rejects.toMatchObject({ name: 'InvalidParameterValue' });
    await expect(
      send({ MessageAttributes: { 'AWS.reserved': { DataType: 'String', StringValue: 'v' } } }),
    ).rejects.toMatchObject({ name: 'InvalidParameterValue' });
    await expect(
      send({ MessageAttributes: { n: { DataType: 'Number', StringValue: 'twelve' } } }),
    ).rejects.toMatchObject({ name: 'InvalidParameterValue' });
    await expect(send({ MessageDeduplicationId: 'd' })).rejects.toMatchObject({
      name: 'InvalidParameterValue',
    });
    await expect(
      world.sqs.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 11 })),
    ).rejects.toMatchObject({ name: 'InvalidParameterValue', Code: 'InvalidParameterValue' });
    await expect(
      world.sqs.send(new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 21 })),
    ).rejects.toMatchObject({ name: 'InvalidParameterValue' });
    await expect(
      world.sqs.send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: 'forged' })),
    ).rejects.toMatchObject({ name: 'ReceiptHandleIsInvalid' });
    // A receipt handle of another queue is not valid for this one.
    const other = await world.queue('other');
    await world.sqs.send(new SendMessageCommand({ QueueUrl: other, MessageBody: 'x' }));
    const [message] = await receive(other);
    await expect(
      world.sqs.send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: message?.ReceiptHandle })),
    ).rejects.toMatchObject({ name: 'ReceiptHandleIsInvalid' });
  });

  it('deletes with an older receipt handle on a standard queue, and deleting twice succeeds', async () => {
    // "If you use an old ReceiptHandle, the request will succeed, but the message might not be
    // deleted"; on standard queues "older receipt handles might succeed": here they do.
    const QueueUrl = await world.queue('old-receipt');
    await world.sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'x' }));
    const [first] = await receive(QueueUrl, { VisibilityTimeout: 0 });
    const [second] = await receive(QueueUrl, { VisibilityTimeout: 30 });
    expect(second?.MessageId).toBe(first?.MessageId);
    await world.sqs.send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: first?.ReceiptHandle }));
    await world.sqs.send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: second?.ReceiptHandle }));
    expect(
      (await attributesOf(QueueUrl, ['ApproximateNumberOfMessagesNotVisible']))
        .ApproximateNumberOfMessagesNotVisible,
    ).toBe('0');
  });

  it('purges every message, and allows one purge per queue every 60 seconds', async () => {
    const QueueUrl = await world.queue('purged');
    await world.sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'visible' }));
    await world.sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'delayed', DelaySeconds: 30 }));
    await world.sqs.send(new PurgeQueueCommand({ QueueUrl }));
    expect(
      await attributesOf(QueueUrl, ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesDelayed']),
    ).toEqual({
      ApproximateNumberOfMessages: '0',
      ApproximateNumberOfMessagesDelayed: '0',
    });
    await expect(world.sqs.send(new PurgeQueueCommand({ QueueUrl }))).rejects.toMatchObject({
      name: 'PurgeQueueInProgress',
      $metadata: { httpStatusCode: 403 },
    });
  });
});
