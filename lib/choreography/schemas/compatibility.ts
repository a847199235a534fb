/**
 * Backward compatibility of an event schema: what a consumer written against the published schema
 * relies on must still hold in the new one. Breaking: a property removed (or renamed), a property
 * newly required, a changed type, an enum that lost values, a tighter bound or a changed pattern.
 * Additions (optional properties, enum values, looser bounds) are compatible.
 */
import type { JsonSchema } from './json-schema';

const LOWER_BOUNDS = ['minimum', 'minLength', 'minItems'] as const;
const UPPER_BOUNDS = ['maximum', 'maxLength', 'maxItems'] as const;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const typesOf = (schema: Record<string, unknown>): string[] | undefined => {
  const type = schema.type;
  if (type === undefined) return undefined;
  return (Array.isArray(type) ? type : [type]).map(String).sort();
};

/** The breaking changes from `published` to `current`, each naming its JSON path; empty when compatible. */
export function breakingChanges(published: JsonSchema, current: JsonSchema, path = '$'): string[] {
  const problems: string[] = [];
  const before = published as Record<string, unknown>;
  const after = current as Record<string, unknown>;

  const oldTypes = typesOf(before);
  const newTypes = typesOf(after);
  if (oldTypes && (!newTypes || oldTypes.some((type) => !newTypes.includes(type)))) {
    if (!(oldTypes.length === 1 && oldTypes[0] === 'integer' && newTypes?.includes('number'))) {
      problems.push(`${path}: type changed from ${oldTypes.join('|')} to ${newTypes?.join('|') ?? 'any'}`);
    }
  }
  if (Array.isArray(before.enum)) {
    const allowed = Array.isArray(after.enum) ? after.enum : undefined;
    const lost = allowed ? before.enum.filter((value) => !allowed.includes(value)) : [];
    if (lost.length > 0) problems.push(`${path}: enum narrowed, lost ${JSON.stringify(lost)}`);
  }
  for (const bound of LOWER_BOUNDS) {
    const [was, is] = [before[bound], after[bound]];
    if (typeof is === 'number' && (typeof was !== 'number' || is > was)) {
      problems.push(`${path}: ${bound} tightened from ${was ?? 'none'} to ${is}`);
    }
  }
  for (const bound of UPPER_BOUNDS) {
    const [was, is] = [before[bound], after[bound]];
    if (typeof is === 'number' && (typeof was !== 'number' || is < was)) {
      problems.push(`${path}: ${bound} tightened from ${was ?? 'none'} to ${is}`);
    }
  }
  if (after.pattern !== undefined && after.pattern !== before.pattern) {
    problems.push(
      `${path}: pattern changed from ${String(before.pattern ?? 'none')} to ${String(after.pattern)}`,
    );
  }
  if (before.additionalProperties !== false && after.additionalProperties === false) {
    problems.push(`${path}: unknown properties are now rejected`);
  }

  const oldProperties = isObject(before.properties) ? before.properties : {};
  const newProperties = isObject(after.properties) ? after.properties : {};
  for (const [name, schema] of Object.entries(oldProperties)) {
    const next = newProperties[name];
    if (next === undefined) {
      problems.push(`${path}.${name}: property removed (or renamed)`);
    } else if (isObject(schema) && isObject(next)) {
      problems.push(...breakingChanges(schema, next, `${path}.${name}`));
    }
  }
  const wasRequired = new Set(Array.isArray(before.required) ? before.required : []);
  for (const name of Array.isArray(after.required) ? after.required : []) {
    if (!wasRequired.has(name)) problems.push(`${path}.${String(name)}: newly required`);
  }
  if (isObject(before.items) && isObject(after.items)) {
    problems.push(...breakingChanges(before.items, after.items, `${path}[]`));
  }
  return problems;
}
