/**
 * Validation of what a send carries (body, message attributes, system attributes, FIFO ids) with the
 * limits of the SQS quotas page, and the shapes a receive answers with.
 */
import { SqsErrors } from './errors';
import { FIFO_ID, MAX_MESSAGE_ATTRIBUTES } from './limits';
import type { MessageAttributeValue } from './md5';

/** Characters a message may contain (the XML 1.0 character set, as the SQS quotas page states). */
const INVALID_CHARACTER = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;
const ATTRIBUTE_NAME = /^[A-Za-z0-9_.-]{1,256}$/;
const DATA_TYPE = /^(String|Number|Binary)(\..+)?$/;
const NUMBER = /^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/;

/** System attributes a receive can ask for (MessageSystemAttributeNames). */
export const MESSAGE_SYSTEM_ATTRIBUTE_NAMES = [
  'SenderId',
  'SentTimestamp',
  'ApproximateReceiveCount',
  'ApproximateFirstReceiveTimestamp',
  'SequenceNumber',
  'MessageDeduplicationId',
  'MessageGroupId',
  'AWSTraceHeader',
  'DeadLetterQueueSourceArn',
] as const;

export function checkCharacters(text: string, where: string): void {
  const invalid = INVALID_CHARACTER.exec(text);
  if (invalid) {
    const code = invalid[0].codePointAt(0)?.toString(16).toUpperCase() ?? '?';
    throw SqsErrors.invalidMessageContents(
      `Invalid binary character '#x${code}' was found in the ${where}, the set of allowed characters is available at http://www.w3.org/TR/REC-xml/#charsets`,
    );
  }
}

export function checkFifoId(value: unknown, parameter: 'MessageGroupId' | 'MessageDeduplicationId'): string {
  if (typeof value !== 'string' || !FIFO_ID.test(value)) {
    throw SqsErrors.invalidParameterValue(
      `Value ${String(value)} for parameter ${parameter} is invalid. Reason: ${parameter} can only include alphanumeric and punctuation characters. 1 to 128 in length.`,
    );
  }
  return value;
}

/**
 * Validates message attributes and returns them normalized with their size in bytes (name, data
 * type and value count towards the message size).
 */
export function checkMessageAttributes(given: unknown): {
  readonly attributes: Record<string, MessageAttributeValue>;
  readonly size: number;
} {
  const attributes: Record<string, MessageAttributeValue> = {};
  let size = 0;
  const entries = Object.entries((given ?? {}) as Record<string, Record<string, unknown>>);
  if (entries.length > MAX_MESSAGE_ATTRIBUTES) {
    throw SqsErrors.invalidParameterValue(
      `Number of message attributes [${entries.length}] exceeds the allowed maximum [${MAX_MESSAGE_ATTRIBUTES}].`,
    );
  }
  for (const [name, value] of entries) {
    const lower = name.toLowerCase();
    if (
      !ATTRIBUTE_NAME.test(name) ||
      name.startsWith('.') ||
      name.endsWith('.') ||
      name.includes('..') ||
      lower.startsWith('aws.') ||
      lower.startsWith('amazon.')
    ) {
      throw SqsErrors.invalidParameterValue(
        `Message (user) attribute name '${name}' is invalid. Names can use alphanumeric characters, hyphens, underscores and periods, cannot start or end with a period, contain consecutive periods, or start with AWS. or Amazon.`,
      );
    }
    const dataType = value?.DataType;
    if (typeof dataType !== 'string' || dataType.length > 256 || !DATA_TYPE.test(dataType)) {
      throw SqsErrors.invalidParameterValue(
        `The message attribute '${name}' has an invalid message attribute type, the set of supported type prefixes is Binary, Number, and String.`,
      );
    }
    if (dataType.startsWith('Binary')) {
      const binary = value?.BinaryValue;
      if (typeof binary !== 'string' || binary === '') {
        throw SqsErrors.invalidParameterValue(
          `The message attribute '${name}' with type 'Binary' must use field 'Binary'.`,
        );
      }
      attributes[name] = { DataType: dataType, BinaryValue: binary };
      size += Buffer.from(binary, 'base64').length;
    } else {
      const text = value?.StringValue;
      const kind = dataType.startsWith('Number') ? 'Number' : 'String';
      if (typeof text !== 'string' || text === '') {
        throw SqsErrors.invalidParameterValue(
          `The message attribute '${name}' must contain non-empty message attribute value for message attribute type '${kind}'.`,
        );
      }
      if (kind === 'Number' && !NUMBER.test(text)) {
        throw SqsErrors.invalidParameterValue(
          `Can't cast the value of message (user) attribute '${name}' to a number.`,
        );
      }
      checkCharacters(text, `message attribute '${name}'`);
      attributes[name] = { DataType: dataType, StringValue: text };
      size += Buffer.byteLength(text, 'utf8');
    }
    size += Buffer.byteLength(name, 'utf8') + Buffer.byteLength(dataType, 'utf8');
  }
  return { attributes, size };
}

/** Message system attributes a send may carry: AWSTraceHeader only, a String. */
export function checkSystemAttributes(given: unknown): Record<string, MessageAttributeValue> {
  const attributes: Record<string, MessageAttributeValue> = {};
  for (const [name, value] of Object.entries((given ?? {}) as Record<string, Record<string, unknown>>)) {
    if (name !== 'AWSTraceHeader') {
      throw SqsErrors.invalidParameterValue(
        `Message system attribute name '${name}' is invalid. The only supported message system attribute is AWSTraceHeader.`,
      );
    }
    if (value?.DataType !== 'String' || typeof value.StringValue !== 'string' || value.StringValue === '') {
      throw SqsErrors.invalidParameterValue(
        "Message system attribute 'AWSTraceHeader' must be a non-empty value of type 'String'.",
      );
    }
    attributes[name] = { DataType: 'String', StringValue: value.StringValue };
  }
  return attributes;
}

/**
 * Which message attributes a receive returns: `All` or `.*` for every one, `prefix.*` for names
 * starting with `prefix.`, or exact names.
 */
export function selectMessageAttributes(
  attributes: Readonly<Record<string, MessageAttributeValue>>,
  requested: readonly string[],
): Record<string, MessageAttributeValue> {
  const selected: Record<string, MessageAttributeValue> = {};
  for (const [name, value] of Object.entries(attributes)) {
    const wanted = requested.some(
      (pattern) =>
        pattern === 'All' ||
        pattern === '.*' ||
        pattern === name ||
        (pattern.endsWith('.*') && name.startsWith(pattern.slice(0, -1))),
    );
    if (wanted) selected[name] = value;
  }
  return selected;
}
