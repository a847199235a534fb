/**
 * The digests of the SQS service against values computed independently of it: the body's by Node's
 * MD5 of known text, the attributes' by the published examples of aws-md5-of-message-attributes (an
 * implementation of the algorithm AWS documents in "Calculating the MD5 message digest for message
 * attributes"). The SDK itself verifies MD5OfMessageBody on every send and receive of the
 * integration tests.
 */
import { md5OfBody, md5OfMessageAttributes } from '../../../../lib/local-runtime/sqs/md5';

const binary = (text: string) => Buffer.from(text).toString('base64');

describe('SQS message digests', () => {
  it('digests the body as the MD5 of its UTF-8 bytes', () => {
    expect(md5OfBody('hello')).toBe('5d41402abc4b2a76b9719d911017c592');
    // UTF-8, not UTF-16 or Latin-1: c3 a9 e2 9c 93.
    expect(md5OfBody('é✓')).toBe('7cb60204e92656d1f47b2d4d1fecfb2c');
  });

  it.each([
    [
      'a String attribute',
      { attribName1: { DataType: 'String', StringValue: 'attribValue 1' } },
      '19e27d4e946b072f3f58da80d94fd778',
    ],
    [
      'a custom Number type',
      {
        customNumberTypeAttrib: {
          DataType: 'Number.float',
          StringValue: '4563442423554324324264524243.32543234',
        },
      },
      '9fe1b90bbd9965bdf77bac517c7d2495',
    ],
    [
      'a Binary attribute',
      { binaryAttribute: { DataType: 'Binary', BinaryValue: binary('Hello binary world!') } },
      '31a92b15d92f8db860eda32aceb656c3',
    ],
    [
      'several attributes, in name order whatever the given order',
      {
        binaryAttribute: { DataType: 'Binary', BinaryValue: binary('Hello binary world!') },
        customNumberTypeAttrib: {
          DataType: 'Number.float',
          StringValue: '4563442423554324324264524243.32543234',
        },
        attribName1: { DataType: 'String', StringValue: 'attribValue 1' },
      },
      'c932db14a896c663f83c260297d594ff',
    ],
  ])('digests %s as AWS does', (_name, attributes, expected) => {
    expect(md5OfMessageAttributes(attributes)).toBe(expected);
  });

  it('has no attribute digest without attributes (AWS omits MD5OfMessageAttributes)', () => {
    expect(md5OfMessageAttributes({})).toBeUndefined();
  });
});
