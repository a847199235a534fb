import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { BATCH_WRITE_LIMIT, batchWriteAll, chunked } from '../../../lib/bench/core/batch-write';

describe('chunked', () => {
  it('cuts items into consecutive slices of at most the size, in order', () => {
    expect(chunked([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
    expect(chunked([], 25)).toEqual([]);
  });

  it('refuses a size that is not a positive integer', () => {
    expect(() => chunked([1], 0)).toThrow(/positive integer/);
    expect(() => chunked([1], 1.5)).toThrow(/positive integer/);
  });
});

describe('batchWriteAll', () => {
  type Request = { RequestItems: Record<string, { PutRequest: { Item: Record<string, unknown> } }[]> };

  /** A client that leaves the first `unprocessedOnce` items of its first answer unprocessed (or always, with `forever`). */
  function client(options: { unprocessedOnce?: number; forever?: boolean }) {
    const requests: Request[] = [];
    const send = jest.fn(async (command: { input: Request }) => {
      requests.push(command.input);
      const items = command.input.RequestItems.t ?? [];
      const leave = options.forever
        ? items.length
        : requests.length === 1
          ? (options.unprocessedOnce ?? 0)
          : 0;
      return { UnprocessedItems: leave > 0 ? { t: items.slice(0, leave) } : {} };
    });
    return { documents: { send } as unknown as DynamoDBDocumentClient, requests };
  }

  it('writes every item in batches of at most 25 and sends what a response left unprocessed again', async () => {
    const { documents, requests } = client({ unprocessedOnce: 2 });
    const items = Array.from({ length: 30 }, (_, index) => ({ id: `item-${index}` }));
    await batchWriteAll(documents, 't', items, 1);
    const written = requests.flatMap((request) =>
      (request.RequestItems.t ?? []).map((entry) => entry.PutRequest.Item.id),
    );
    expect(requests.map((request) => request.RequestItems.t?.length)).toEqual([BATCH_WRITE_LIMIT, 2, 5]);
    expect(new Set(written).size).toBe(30);
  });

  it('gives up when items stay unprocessed', async () => {
    const { documents } = client({ forever: true });
    await expect(batchWriteAll(documents, 't', [{ id: 'stuck' }], 1)).rejects.toThrow(/still unprocessed/);
  });
});
