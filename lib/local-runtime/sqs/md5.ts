/**
 * The digests SQS returns with every send and receive, computed as AWS documents them ("Calculating
 * the MD5 message digest for message attributes"): clients verify them, the SDK v3 the body's.
 */
import { createHash } from 'node:crypto';

/** A message (or message system) attribute as the JSON protocol carries it (binary in base64). */
export interface MessageAttributeValue {
  readonly DataType: string;
  readonly StringValue?: string;
  readonly BinaryValue?: string;
}

export function md5Hex(data: string | Buffer): string {
  return createHash('md5').update(data).digest('hex');
}

/** MD5 of the body's UTF-8 bytes. */
export function md5OfBody(body: string): string {
  return md5Hex(Buffer.from(body, 'utf8'));
}

/** Transport types of the encoding: 1 for String and Number (and their custom types), 2 for Binary. */
const STRING_TRANSPORT = 1;
const BINARY_TRANSPORT = 2;

function lengthPrefixed(bytes: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(bytes.length);
  return Buffer.concat([length, bytes]);
}

/**
 * MD5 of the attributes sorted by name, each encoded as: name, data type (both length-prefixed UTF-8),
 * one transport-type byte, then the length-prefixed value (UTF-8 string or raw binary bytes).
 * Undefined when there are no attributes (AWS then omits the digest).
 */
export function md5OfMessageAttributes(
  attributes: Readonly<Record<string, MessageAttributeValue>>,
): string | undefined {
  const names = Object.keys(attributes).sort();
  if (names.length === 0) return undefined;
  const parts: Buffer[] = [];
  for (const name of names) {
    const attribute = attributes[name] as MessageAttributeValue;
    parts.push(
      lengthPrefixed(Buffer.from(name, 'utf8')),
      lengthPrefixed(Buffer.from(attribute.DataType, 'utf8')),
    );
    if (attribute.DataType.startsWith('Binary')) {
      parts.push(
        Buffer.from([BINARY_TRANSPORT]),
        lengthPrefixed(Buffer.from(attribute.BinaryValue ?? '', 'base64')),
      );
    } else {
      parts.push(
        Buffer.from([STRING_TRANSPORT]),
        lengthPrefixed(Buffer.from(attribute.StringValue ?? '', 'utf8')),
      );
    }
  }
  return md5Hex(Buffer.concat(parts));
}
