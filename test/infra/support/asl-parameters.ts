/**
 * Resolves the `Parameters` of a JSONPath Task state the way Step Functions does, for the subset
 * of the language the scheduler uses: `key.$` fields holding a reference path (`$.a.b`), a
 * context path (`$$.State.EnteredTime`) or the intrinsics States.StringToJson, States.JsonToString
 * and States.Format with path arguments. Anything else throws, so a definition that outgrows
 * this resolver fails loudly instead of being resolved wrongly.
 */

export interface AslData {
  readonly input: unknown;
  readonly context: unknown;
}

export function resolveParameters(template: unknown, data: AslData): unknown {
  if (Array.isArray(template)) return template.map((item) => resolveParameters(item, data));
  if (typeof template !== 'object' || template === null) return template;
  const resolved: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(template)) {
    if (key.endsWith('.$')) {
      if (typeof value !== 'string') throw new Error(`Field ${key} must hold a path or an intrinsic`);
      resolved[key.slice(0, -2)] = evaluate(value, data);
    } else {
      resolved[key] = resolveParameters(value, data);
    }
  }
  return resolved;
}

function evaluate(expression: string, data: AslData): unknown {
  const intrinsic = /^States\.(\w+)\((.*)\)$/.exec(expression);
  if (!intrinsic) return readPath(expression, data);
  const [, name, args] = intrinsic;
  switch (name) {
    case 'StringToJson':
      return JSON.parse(String(readPath(args ?? '', data)));
    case 'JsonToString':
      return JSON.stringify(readPath(args ?? '', data));
    case 'Format': {
      const format = /^'((?:[^'\\]|\\.)*)'((?:,\s*\$[^,]*)+)$/.exec(args ?? '');
      if (!format) throw new Error(`Unsupported States.Format arguments: ${args}`);
      const paths = (format[2] ?? '')
        .split(',')
        .slice(1)
        .map((path) => path.trim());
      let text = format[1] ?? '';
      for (const path of paths) text = text.replace('{}', String(readPath(path, data)));
      return text;
    }
    default:
      throw new Error(`Unsupported intrinsic States.${name}`);
  }
}

function readPath(path: string, data: AslData): unknown {
  const [root, rest] = path.startsWith('$$.') ? [data.context, path.slice(3)] : [data.input, path.slice(2)];
  if (!path.startsWith('$.') && !path.startsWith('$$.')) throw new Error(`Unsupported path '${path}'`);
  let current: unknown = root;
  for (const segment of rest.split('.')) {
    if (typeof current !== 'object' || current === null || !(segment in current)) {
      throw new Error(`Path ${path} does not exist in the sample (missing '${segment}')`);
    }
    current = (current as Record<string, unknown>)[segment];
  }
  return current;
}
