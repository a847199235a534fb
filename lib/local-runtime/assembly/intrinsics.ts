/**
 * CloudFormation intrinsic functions, resolved the way CloudFormation would for one stack, but
 * against LOCAL physical names and endpoints (supplied by the caller through `ref` and `getAtt`).
 * Pure: no I/O, so every rule here is unit-tested.
 *
 * Hand-written on purpose: the npm resolver (cfn-resolver-lib) takes precomputed values rather than
 * answering Ref/GetAtt lazily with local identities, handles Fn::Sub only with a variable map (CDK
 * writes `${Resource.Attribute}` references), lacks Fn::Base64, and is a single-maintainer package.
 */

/** Marks a value removed with `Ref: AWS::NoValue`; stripped from the enclosing object or array. */
const NO_VALUE: unique symbol = Symbol('AWS::NoValue');

export interface IntrinsicContext {
  readonly region: string;
  readonly accountId: string;
  readonly partition: string;
  readonly urlSuffix: string;
  readonly stackName: string;
  /** Value of `Ref` for a resource logical id. Throws for unknown ids. */
  ref(logicalId: string): unknown;
  /** Value of `Fn::GetAtt` for a resource attribute. Throws for unknown ids or attributes. */
  getAtt(logicalId: string, attribute: string): unknown;
  /** Template sections that intrinsics read (Parameters defaults, Conditions, Mappings). */
  readonly parameters?: Readonly<Record<string, { readonly Default?: unknown; readonly Type?: string }>>;
  readonly conditions?: Readonly<Record<string, unknown>>;
  readonly mappings?: Readonly<Record<string, Record<string, Record<string, unknown>>>>;
}

export class IntrinsicError extends Error {
  constructor(path: string, message: string) {
    super(`${path}: ${message}`);
    this.name = 'IntrinsicError';
  }
}

/** Resolves every intrinsic in `value` (deeply). `path` names the location in errors. */
export function resolveIntrinsics(value: unknown, context: IntrinsicContext, path = '(value)'): unknown {
  const resolved = resolveValue(value, context, path);
  return resolved === NO_VALUE ? undefined : resolved;
}

/** Evaluates a named template condition. */
export function evaluateCondition(name: string, context: IntrinsicContext, path = '(condition)'): boolean {
  const definition = context.conditions?.[name];
  if (definition === undefined) {
    throw new IntrinsicError(path, `unknown condition '${name}'`);
  }
  const result = resolveValue(definition, context, `Conditions.${name}`);
  if (typeof result !== 'boolean') {
    throw new IntrinsicError(path, `condition '${name}' did not evaluate to a boolean`);
  }
  return result;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function resolveValue(value: unknown, context: IntrinsicContext, path: string): unknown {
  if (Array.isArray(value)) {
    return value
      .map((item, index) => resolveValue(item, context, `${path}[${index}]`))
      .filter((item) => item !== NO_VALUE);
  }
  if (!isPlainObject(value)) {
    return value;
  }
  const keys = Object.keys(value);
  const onlyKey = keys.length === 1 ? keys[0] : undefined;
  if (onlyKey !== undefined && (onlyKey === 'Ref' || onlyKey.startsWith('Fn::') || onlyKey === 'Condition')) {
    return resolveFunction(onlyKey, value[onlyKey], context, `${path}.${onlyKey}`);
  }
  const result: Record<string, unknown> = {};
  for (const key of keys) {
    const item = resolveValue(value[key], context, `${path}.${key}`);
    if (item !== NO_VALUE) {
      result[key] = item;
    }
  }
  return result;
}

function expectString(value: unknown, path: string, what: string): string {
  if (typeof value !== 'string') {
    throw new IntrinsicError(path, `${what} must resolve to a string, got ${JSON.stringify(value)}`);
  }
  return value;
}

function expectArray(value: unknown, path: string, what: string): unknown[] {
  if (!Array.isArray(value)) {
    throw new IntrinsicError(path, `${what} must be a list, got ${JSON.stringify(value)}`);
  }
  return value;
}

function resolveFunction(name: string, argument: unknown, context: IntrinsicContext, path: string): unknown {
  const resolve = (item: unknown, suffix = '') => resolveValue(item, context, `${path}${suffix}`);
  switch (name) {
    case 'Ref':
      return resolveRef(expectString(argument, path, 'Ref argument'), context, path);
    case 'Fn::GetAtt': {
      const [logicalId, attribute] = parseGetAtt(argument, path);
      return context.getAtt(logicalId, attribute);
    }
    case 'Fn::Join': {
      const [delimiter, items] = expectArray(argument, path, 'Fn::Join argument');
      const list = expectArray(resolve(items, '[1]'), path, 'Fn::Join list');
      return list
        .map((item, index) => stringify(item, `${path}[1][${index}]`))
        .join(expectString(delimiter, path, 'Fn::Join delimiter'));
    }
    case 'Fn::Sub':
      return resolveSub(argument, context, path);
    case 'Fn::Select': {
      const [index, items] = expectArray(argument, path, 'Fn::Select argument');
      const list = expectArray(resolve(items, '[1]'), path, 'Fn::Select list');
      const position = Number(resolve(index, '[0]'));
      if (!Number.isInteger(position) || position < 0 || position >= list.length) {
        throw new IntrinsicError(
          path,
          `Fn::Select index ${String(index)} is outside a list of ${list.length}`,
        );
      }
      return list[position];
    }
    case 'Fn::Split': {
      const [delimiter, source] = expectArray(argument, path, 'Fn::Split argument');
      return expectString(resolve(source, '[1]'), path, 'Fn::Split source').split(
        expectString(delimiter, path, 'Fn::Split delimiter'),
      );
    }
    case 'Fn::Base64':
      return Buffer.from(expectString(resolve(argument), path, 'Fn::Base64 argument')).toString('base64');
    case 'Fn::GetAZs': {
      const region = resolve(argument) || context.region;
      return ['a', 'b', 'c'].map((zone) => `${String(region)}${zone}`);
    }
    case 'Fn::FindInMap': {
      const [mapName, topKey, secondKey] = expectArray(resolve(argument), path, 'Fn::FindInMap argument');
      const found = context.mappings?.[String(mapName)]?.[String(topKey)]?.[String(secondKey)];
      if (found === undefined) {
        throw new IntrinsicError(
          path,
          `no mapping ${String(mapName)}.${String(topKey)}.${String(secondKey)}`,
        );
      }
      return found;
    }
    case 'Fn::ImportValue':
      throw new IntrinsicError(
        path,
        `Fn::ImportValue ${JSON.stringify(argument)} is not supported: the local runtime runs each stack on its own, ` +
          'so cross-stack exports cannot be resolved',
      );
    case 'Fn::If': {
      const [condition, whenTrue, whenFalse] = expectArray(argument, path, 'Fn::If argument');
      const chosen = evaluateCondition(expectString(condition, path, 'Fn::If condition'), context, path)
        ? whenTrue
        : whenFalse;
      return resolve(chosen);
    }
    case 'Fn::Equals': {
      const [left, right] = expectArray(argument, path, 'Fn::Equals argument');
      return JSON.stringify(resolve(left)) === JSON.stringify(resolve(right));
    }
    case 'Fn::Not': {
      const [operand] = expectArray(argument, path, 'Fn::Not argument');
      return !expectBoolean(resolve(operand), path);
    }
    case 'Fn::And':
      return expectArray(argument, path, 'Fn::And argument').every((item) =>
        expectBoolean(resolve(item), path),
      );
    case 'Fn::Or':
      return expectArray(argument, path, 'Fn::Or argument').some((item) =>
        expectBoolean(resolve(item), path),
      );
    case 'Condition':
      return evaluateCondition(expectString(argument, path, 'Condition name'), context, path);
    default:
      throw new IntrinsicError(path, `intrinsic function ${name} is not supported by the local runtime`);
  }
}

function expectBoolean(value: unknown, path: string): boolean {
  if (typeof value !== 'boolean') {
    throw new IntrinsicError(path, `condition operand must be a boolean, got ${JSON.stringify(value)}`);
  }
  return value;
}

function stringify(value: unknown, path: string): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw new IntrinsicError(path, `expected a string, got ${JSON.stringify(value)}`);
}

function parseGetAtt(argument: unknown, path: string): [string, string] {
  if (typeof argument === 'string') {
    const dot = argument.indexOf('.');
    if (dot > 0) return [argument.slice(0, dot), argument.slice(dot + 1)];
  }
  if (Array.isArray(argument) && typeof argument[0] === 'string' && typeof argument[1] === 'string') {
    return [argument[0], argument[1]];
  }
  throw new IntrinsicError(path, `Fn::GetAtt needs [logicalId, attribute], got ${JSON.stringify(argument)}`);
}

function pseudoParameter(name: string, context: IntrinsicContext): unknown {
  switch (name) {
    case 'AWS::Region':
      return context.region;
    case 'AWS::AccountId':
      return context.accountId;
    case 'AWS::Partition':
      return context.partition;
    case 'AWS::URLSuffix':
      return context.urlSuffix;
    case 'AWS::StackName':
      return context.stackName;
    case 'AWS::StackId':
      return `arn:${context.partition}:cloudformation:${context.region}:${context.accountId}:stack/${context.stackName}/local`;
    case 'AWS::NotificationARNs':
      return [];
    case 'AWS::NoValue':
      return NO_VALUE;
    default:
      return undefined;
  }
}

function resolveRef(name: string, context: IntrinsicContext, path: string): unknown {
  if (name.startsWith('AWS::')) {
    const pseudo = pseudoParameter(name, context);
    if (pseudo === undefined) {
      throw new IntrinsicError(path, `unknown pseudo parameter ${name}`);
    }
    return pseudo;
  }
  const parameter = context.parameters?.[name];
  if (parameter !== undefined) {
    if (parameter.Default === undefined) {
      throw new IntrinsicError(
        path,
        `parameter ${name} has no Default and the local runtime takes no parameters`,
      );
    }
    return parameter.Default;
  }
  return context.ref(name);
}

/** `${Name}`, `${Name.Attribute}`, `${AWS::Region}`, and `${!Literal}` (which stays `${Literal}`). */
function resolveSub(argument: unknown, context: IntrinsicContext, path: string): string {
  let template: string;
  let variables: Record<string, unknown> = {};
  if (typeof argument === 'string') {
    template = argument;
  } else if (Array.isArray(argument) && typeof argument[0] === 'string' && isPlainObject(argument[1])) {
    template = argument[0];
    variables = argument[1];
  } else {
    throw new IntrinsicError(
      path,
      `Fn::Sub needs a string or [string, variables], got ${JSON.stringify(argument)}`,
    );
  }
  return template.replace(/\$\{([^}]*)\}/g, (_match, expression: string) => {
    if (expression.startsWith('!')) {
      return `\${${expression.slice(1)}}`;
    }
    const name = expression.trim();
    if (name in variables) {
      return stringify(resolveValue(variables[name], context, `${path}.${name}`), `${path}.${name}`);
    }
    const dot = name.indexOf('.');
    if (dot > 0 && !name.startsWith('AWS::')) {
      return stringify(context.getAtt(name.slice(0, dot), name.slice(dot + 1)), `${path}.\${${name}}`);
    }
    return stringify(resolveRef(name, context, `${path}.\${${name}}`), `${path}.\${${name}}`);
  });
}
