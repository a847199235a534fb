/**
 * DynamoDB's typed JSON (as stream records carry images) to plain values, for the attribute types
 * the change log holds. Written here rather than importing @aws-sdk/util-dynamodb, which the
 * project does not depend on directly (it is only lib-dynamodb's own dependency).
 */
export type StreamAttributeValue = {
  readonly S?: string;
  readonly N?: string;
  readonly BOOL?: boolean;
  readonly NULL?: boolean;
  readonly M?: Readonly<Record<string, StreamAttributeValue>>;
  readonly L?: readonly StreamAttributeValue[];
  readonly SS?: readonly string[];
  readonly NS?: readonly string[];
};

export function fromAttributeValue(value: StreamAttributeValue): unknown {
  if (value.S !== undefined) return value.S;
  if (value.N !== undefined) return Number(value.N);
  if (value.BOOL !== undefined) return value.BOOL;
  if (value.NULL !== undefined) return null;
  if (value.L !== undefined) return value.L.map(fromAttributeValue);
  if (value.M !== undefined) {
    return Object.fromEntries(
      Object.entries(value.M).map(([key, inner]) => [key, fromAttributeValue(inner)]),
    );
  }
  if (value.SS !== undefined) return [...value.SS];
  if (value.NS !== undefined) return value.NS.map(Number);
  throw new Error(`Unsupported DynamoDB attribute value: ${Object.keys(value).join(', ')}`);
}
