/**
 * What the SQS operations read from a request body (service.ts, message-operations.ts): integer
 * parameters within bounds, string lists, optional fields, and a message's payload bytes as
 * metering counts them.
 */
import { SqsErrors } from './errors';

/** A request or response body of the JSON protocol. */
export type Body = Record<string, unknown>;

/**
 * Bytes of a message's body and message attributes (names, types and values), in the shape of a
 * SendMessage request or a received message (binary values in base64).
 */
export function messagePayloadBytes(message: unknown): number {
  const fields = (typeof message === 'object' && message !== null ? message : {}) as Body;
  const body = fields.MessageBody ?? fields.Body;
  let bytes = typeof body === 'string' ? Buffer.byteLength(body) : 0;
  const attributes = fields.MessageAttributes;
  if (typeof attributes === 'object' && attributes !== null) {
    for (const [name, value] of Object.entries(attributes)) {
      const { DataType, StringValue, BinaryValue } = (value ?? {}) as Body;
      bytes += Buffer.byteLength(name) + Buffer.byteLength(String(DataType ?? ''));
      if (typeof StringValue === 'string') bytes += Buffer.byteLength(StringValue);
      if (typeof BinaryValue === 'string') bytes += Buffer.from(BinaryValue, 'base64').length;
    }
  }
  return bytes;
}

/** An integer parameter within bounds, or InvalidParameterValue naming it. */
export function integerParameter(
  body: Body,
  name: string,
  min: number,
  max: number,
  reason: string,
): number | undefined {
  const value = body[name];
  if (value === undefined || value === null) return undefined;
  const number = Number(value);
  if (!Number.isInteger(number) || number < min || number > max) {
    throw SqsErrors.invalidParameterValue(
      `Value ${String(value)} for parameter ${name} is invalid. Reason: ${reason}`,
    );
  }
  return number;
}

export function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

/** `{ [name]: value }` when the value is defined, else nothing (spread into objects). */
export function optional<K extends string, V>(name: K, value: V | undefined): { [key in K]?: V } {
  return value === undefined ? {} : ({ [name]: value } as { [key in K]?: V });
}
