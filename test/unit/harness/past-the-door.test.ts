/**
 * The past-the-door kit reads the stack's Requesters output with its contract schema: a stack that
 * lists no requester, or a malformed list, is refused before anything is written.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { PastTheDoor } from '../../../lib/harness/past-the-door';

const dynamo = new DynamoDBClient({ region: 'us-east-1', endpoint: 'http://127.0.0.1:9' });
const documents = DynamoDBDocumentClient.from(dynamo);
afterAll(() => dynamo.destroy());

describe('PastTheDoor', () => {
  it('refuses a stack that lists no requester', () => {
    expect(() => new PastTheDoor(documents, 'ingestion', '[]')).toThrow(/at least 1|too_small|>=1/i);
  });

  it('refuses a requester list that is not the contract', () => {
    expect(() => new PastTheDoor(documents, 'ingestion', '[{"requesterId":"A"}]')).toThrow(
      /requesterId|apiKeyId/,
    );
  });

  it('writes as the first requester unless told otherwise', () => {
    const door = new PastTheDoor(
      documents,
      'ingestion',
      '[{"requesterId":"first","apiKeyId":"k1"},{"requesterId":"second","apiKeyId":"k2"}]',
    );
    expect(door.firstRequesterId).toBe('first');
    expect(door.requesters.map((requester) => requester.requesterId)).toEqual(['first', 'second']);
  });
});
