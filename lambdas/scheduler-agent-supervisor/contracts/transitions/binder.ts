/**
 * Binds a caller's values to a rendered transition (renderer.ts): the parameters, each checked
 * against its declared type, the composed map values, and the attribute names a parameter gives.
 */
import type { ParamType, RenderedTransition } from './model';

/** How a caller turns constants and composed maps into its own values (needed when a transition has maps). */
export interface ValueComposer<V> {
  constant(value: string | number | boolean): V;
  map(entries: Readonly<Record<string, V>>): V;
}

/**
 * Binds the caller's values to a rendered transition's parameters: exactly the declared ones, each
 * of its declared type (`typeOf` tells the type of a value on the caller's side), and composes its
 * map values with `compose`. Throws naming every missing, unknown or mistyped parameter.
 */
export function bindParams<V>(
  label: string,
  rendered: RenderedTransition,
  values: Readonly<Record<string, V>>,
  typeOf: (value: V) => ParamType | undefined,
  compose?: ValueComposer<V>,
): Record<string, V> {
  const problems: string[] = [];
  const bound: Record<string, V> = {};
  const checked = new Set<string>();
  const boundValue = (name: string, type: ParamType): V | undefined => {
    const value = values[name];
    if (checked.has(name)) return value;
    checked.add(name);
    if (value === undefined) {
      problems.push(`missing parameter '${name}'`);
      return undefined;
    }
    const actual = typeOf(value);
    if (actual !== type)
      problems.push(`parameter '${name}' must be of type ${type}, got ${actual ?? 'an unknown type'}`);
    return value;
  };
  for (const [placeholder, { name, type }] of Object.entries(rendered.params)) {
    const value = boundValue(name, type);
    if (value !== undefined) bound[placeholder] = value;
  }
  // Parameters that name an attribute are checked here; bindNames puts them in the names.
  for (const { name, type } of Object.values(rendered.nameParams ?? {})) boundValue(name, type);
  for (const [placeholder, entries] of Object.entries(rendered.maps)) {
    if (compose === undefined) {
      problems.push(`map ${placeholder} needs a value composer`);
      continue;
    }
    const composed: Record<string, V> = {};
    for (const [key, entry] of Object.entries(entries)) {
      const value = 'param' in entry ? boundValue(entry.param, entry.type) : compose.constant(entry.constant);
      if (value !== undefined) composed[key] = value;
    }
    bound[placeholder] = compose.map(composed);
  }
  for (const name of Object.keys(values)) {
    if (!checked.has(name)) problems.push(`unknown parameter '${name}'`);
  }
  if (problems.length > 0) throw new Error(`State transition '${label}': ${problems.join('; ')}`);
  return bound;
}

/**
 * The attribute names a rendered transition takes from the caller's values (THIS_ALERT: the
 * alertId), as `nameOf` renders a bound value on the caller's side (bindParams checked them).
 */
export function bindNames<V>(
  rendered: RenderedTransition,
  values: Readonly<Record<string, V>>,
  nameOf: (value: V) => string,
): Record<string, string> {
  const names: Record<string, string> = {};
  for (const [placeholder, { name }] of Object.entries(rendered.nameParams ?? {})) {
    const value = values[name];
    if (value === undefined) throw new Error(`bindNames: missing parameter '${name}'`);
    names[placeholder] = nameOf(value);
  }
  return names;
}
