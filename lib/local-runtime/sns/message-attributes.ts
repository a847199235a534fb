/**
 * SNS message attributes (Publish's MessageAttributes): validated as SNS validates them, and shaped
 * for each way a subscriber sees them: SQS message attributes (raw message delivery), the
 * notification's `MessageAttributes: { name: { Type, Value } }` (envelope and Lambda), and the values
 * a filter policy matches (String as text, Number as a number, String.Array as its elements; Binary
 * never matches, as SNS documents).
 */
import { parameterValueInvalid } from './errors';

export interface SnsMessageAttribute {
  readonly DataType: string;
  readonly StringValue?: string;
  /** Base64, as the Query protocol and the SDK carry it. */
  readonly BinaryValue?: string;
}

export type SnsMessageAttributes = Readonly<Record<string, SnsMessageAttribute>>;

/** SNS's limit on attributes per message. */
const MAX_ATTRIBUTES = 10;
const ATTRIBUTE_NAME = /^[A-Za-z0-9_.-]{1,256}$/;
const DATA_TYPES = ['String', 'Number', 'Binary', 'String.Array'] as const;

/** The attributes of a Publish, or ParameterValueInvalid naming the first one SNS would refuse. */
export function checkSnsMessageAttributes(given: unknown): SnsMessageAttributes {
  const entries = Object.entries((given ?? {}) as Record<string, Partial<SnsMessageAttribute>>);
  if (entries.length > MAX_ATTRIBUTES) {
    throw parameterValueInvalid(
      `Number of message attributes [${entries.length}] exceeds the allowed maximum [${MAX_ATTRIBUTES}].`,
    );
  }
  const checked: Record<string, SnsMessageAttribute> = {};
  for (const [name, value] of entries) {
    if (!ATTRIBUTE_NAME.test(name) || name.startsWith('.') || name.endsWith('.') || name.includes('..')) {
      throw parameterValueInvalid(`The message attribute name '${name}' is invalid.`);
    }
    const dataType = value?.DataType;
    if (!DATA_TYPES.includes(dataType as (typeof DATA_TYPES)[number])) {
      throw parameterValueInvalid(
        `The message attribute '${name}' has an invalid message attribute type, the set of supported type prefixes is Binary, Number, and String.`,
      );
    }
    if (dataType === 'Binary') {
      if (typeof value.BinaryValue !== 'string' || value.BinaryValue === '') {
        throw parameterValueInvalid(
          `The message attribute '${name}' with type 'Binary' must use field 'Binary'.`,
        );
      }
      checked[name] = { DataType: dataType, BinaryValue: value.BinaryValue };
      continue;
    }
    const text = value.StringValue;
    if (typeof text !== 'string' || text === '') {
      throw parameterValueInvalid(
        `The message attribute '${name}' must contain non-empty message attribute value for message attribute type '${dataType}'.`,
      );
    }
    if (dataType === 'Number' && !Number.isFinite(Number(text))) {
      throw parameterValueInvalid(`Could not cast message attribute '${name}' value to number.`);
    }
    if (dataType === 'String.Array' && !Array.isArray(parseJson(text))) {
      throw parameterValueInvalid(
        `The message attribute '${name}' with type 'String.Array' must be a JSON array of strings, numbers, booleans or null.`,
      );
    }
    checked[name] = { DataType: dataType as string, StringValue: text };
  }
  return checked;
}

/**
 * A publish's size as SNS limits it: the message body and, for each attribute, its name, data type
 * and value ("All parts of the message attribute, including name, type, and value, are included in
 * the message size restriction", MessageAttributeValue in the SNS API reference:
 * https://docs.aws.amazon.com/sns/latest/api/API_MessageAttributeValue.html), in UTF-8 bytes (a
 * binary value as its decoded bytes).
 */
export function publishSizeBytes(message: string, attributes: SnsMessageAttributes): number {
  let bytes = Buffer.byteLength(message, 'utf8');
  for (const [name, value] of Object.entries(attributes)) {
    bytes += Buffer.byteLength(name, 'utf8') + Buffer.byteLength(value.DataType, 'utf8');
    if (value.StringValue !== undefined) bytes += Buffer.byteLength(value.StringValue, 'utf8');
    if (value.BinaryValue !== undefined) bytes += Buffer.from(value.BinaryValue, 'base64').length;
  }
  return bytes;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** What the notification JSON (and a Lambda's `Sns.MessageAttributes`) carries. */
export function notificationAttributes(
  attributes: SnsMessageAttributes,
): Record<string, { Type: string; Value: string }> {
  return Object.fromEntries(
    Object.entries(attributes).map(([name, value]) => [
      name,
      { Type: value.DataType, Value: value.StringValue ?? value.BinaryValue ?? '' },
    ]),
  );
}

/** The values a MessageAttributes-scoped filter policy is matched against. */
export function filterValues(attributes: SnsMessageAttributes): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(attributes)) {
    if (value.DataType === 'Number') values[name] = Number(value.StringValue);
    else if (value.DataType === 'String.Array') values[name] = parseJson(value.StringValue ?? '[]');
    else if (value.DataType === 'String') values[name] = value.StringValue;
  }
  return values;
}
