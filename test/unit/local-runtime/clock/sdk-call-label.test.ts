/**
 * What a seeded clock calls an SDK call of the runtime's own: the same for the same call in every
 * run (no loopback port, no stream label or shard id, which DynamoDB Local stamps with the
 * machine's time), different for calls that differ in what they send.
 */
import { sdkCallLabel } from '../../../../lib/local-runtime/clock/sdk-call-label';

describe('sdkCallLabel', () => {
  it('names the command and the queue by its path, whatever port the run listens on', () => {
    const at = (port: number) =>
      sdkCallLabel('ReceiveMessageCommand', {
        QueueUrl: `http://127.0.0.1:${port}/000000000000/Work`,
        WaitTimeSeconds: 20,
      });
    expect(at(4001)).toBe(at(5123));
    expect(at(4001)).toMatch(/^sdk ReceiveMessage \/000000000000\/Work [0-9a-f]{8}$/);
  });

  it('leaves out the stream label, the shard id and the iterator position DynamoDB Local mints', () => {
    const stream = (label: string, shard: string) =>
      sdkCallLabel('GetShardIteratorCommand', {
        StreamArn: `arn:aws:dynamodb:ddblocal:000000000000:table/T/stream/${label}`,
        ShardId: `shardId-${shard}`,
        ShardIteratorType: 'TRIM_HORIZON',
      });
    expect(stream('2026-12-04T20:19:03.346', '00000001733-abc')).toBe(
      stream('2026-12-05T08:00:00.001', '00000001799-def'),
    );
    expect(stream('2026-12-04T20:19:03.346', 'x')).toMatch(
      /^sdk GetShardIterator arn:.*table\/T\/stream [0-9a-f]{8}$/,
    );
    const records = (iterator: string) => sdkCallLabel('GetRecordsCommand', { ShardIterator: iterator });
    expect(
      records('000|arn:aws:dynamodb:ddblocal:000000000000:table/T/stream/2026-12-04T20:19:03.346|42'),
    ).toBe(records('000|arn:aws:dynamodb:ddblocal:000000000000:table/T/stream/2026-12-05T01:02:03.004|97'));
  });

  it('tells apart two calls on one resource by what they send', () => {
    const update = (orderId: string) =>
      sdkCallLabel('UpdateItemCommand', { TableName: 'State', Key: { OrderID: { S: orderId } } });
    expect(update('a')).not.toBe(update('b'));
    expect(update('a')).toMatch(/^sdk UpdateItem State [0-9a-f]{8}$/);
    expect(sdkCallLabel(undefined, undefined)).toMatch(/^sdk call [0-9a-f]{8}$/);
  });
});
