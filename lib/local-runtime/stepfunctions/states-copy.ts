/**
 * Copies of a state machine definition the runtime makes before running it: placeholders replaced
 * in every string, and every state instrumented so the runtime learns which state an execution
 * entered (Parallel branches and Map iterators included).
 */
type Json = Record<string, unknown>;

/** Deep copy of a JSON value with every occurrence of `search` in strings replaced. */
export function replaceInStrings(value: unknown, search: string, replacement: string): unknown {
  if (typeof value === 'string')
    return value.includes(search) ? value.split(search).join(replacement) : value;
  if (Array.isArray(value)) return value.map((item) => replaceInStrings(item, search, replacement));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, replaceInStrings(item, search, replacement)]),
    );
  }
  return value;
}

/** JSON deep copy (asl-validator annotates the object it checks; the engine copy stays as prepared). */
export function structuredCopy(value: Json): Json {
  return JSON.parse(JSON.stringify(value)) as Json;
}

/**
 * A per-execution view of the definition whose States maps report each state the engine enters
 * (it reads `States[name]` right before evaluating that state's paths, synchronously). Inside
 * Parallel/Map branches running side by side, $$.State reflects the state entered last.
 */
export function instrumentStates(machine: Json, onEnter: (stateName: string) => void): Json {
  const states = machine.States as Record<string, Json>;
  const copy: Record<string, Json> = {};
  for (const [name, state] of Object.entries(states)) {
    if (state.Type === 'Parallel' && Array.isArray(state.Branches)) {
      copy[name] = {
        ...state,
        Branches: (state.Branches as Json[]).map((branch) => instrumentStates(branch, onEnter)),
      };
    } else if (state.Type === 'Map') {
      const key = state.ItemProcessor ? 'ItemProcessor' : 'Iterator';
      copy[name] = { ...state, [key]: instrumentStates(state[key] as Json, onEnter) };
    } else {
      copy[name] = state;
    }
  }
  return {
    ...machine,
    States: new Proxy(copy, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver);
        if (typeof property === 'string' && Object.hasOwn(target, property)) onEnter(property);
        return value;
      },
    }),
  };
}
