/**
 * A DynamoDB condition the code puts on a write, read as a Promela guard. The code uses two shapes,
 * "the item does not exist" and "its version is the one read"; any other shape is refused by name,
 * so a new condition in the code cannot slip past the model (the generator fails until the model
 * learns it). A write with no condition (a broken variant's) guards nothing: `1`.
 */

/** What a condition carries (DynamoDB's own field names). */
export interface WriteCondition {
  readonly ConditionExpression?: string;
  readonly ExpressionAttributeNames?: Readonly<Record<string, string>>;
  readonly ExpressionAttributeValues?: Readonly<Record<string, unknown>>;
}

/** How the model names one item: its absence, and its version equal to a value. */
export interface ModelItem {
  readonly absent: string;
  readonly versionIs: (value: string) => string;
  /** The attribute names the code uses: the key and the version. */
  readonly keyAttribute: string;
  readonly versionAttribute: string;
}

/**
 * @param values the Promela expression for each value the condition may compare with (the version
 * the model read, passed to the code as a sentinel number)
 */
export function conditionGuard(
  condition: WriteCondition | undefined,
  item: ModelItem,
  values: ReadonlyMap<unknown, string> = new Map(),
): string {
  const expression = condition?.ConditionExpression;
  if (expression === undefined) return '1';
  const names = condition?.ExpressionAttributeNames ?? {};
  const resolved = expression.replace(/#\w+/g, (name) => names[name] ?? name).trim();
  if (resolved === `attribute_not_exists(${item.keyAttribute})`) return `(${item.absent})`;
  const equality = new RegExp(`^${item.versionAttribute} = (:\\w+)$`).exec(resolved);
  const placeholder = equality?.[1];
  if (placeholder !== undefined) {
    const value = condition?.ExpressionAttributeValues?.[placeholder];
    const promela = values.get(value);
    if (promela === undefined) {
      throw new Error(`The model knows no value ${String(value)} for the condition '${expression}'`);
    }
    return `(${item.versionIs(promela)})`;
  }
  throw new Error(
    `The model reads two condition shapes (attribute_not_exists(key), version = :value); the code wrote '${expression}'`,
  );
}
