/**
 * IAM policy documents, parsed and compiled once: identity policies (a role's or a user's) and
 * resource-based policies (a queue's, a topic's, a function's permissions, a key policy). The
 * grammar is the IAM User Guide's
 * (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_grammar.html); what the
 * local evaluator cannot evaluate faithfully is refused here with every problem named, so a local
 * deploy fails instead of treating a statement as holding or not for the wrong reason:
 * an unknown condition operator or key (condition-operators.ts, condition-keys.ts), a Federated or
 * CanonicalUser principal, a malformed element.
 *
 * Policy variables (`${aws:username}`, `${aws:PrincipalArn}`..., and `${*}`, `${?}`, `${$}`) are
 * replaced in Resource/NotResource and in condition values when the document's Version is
 * 2012-10-17, as IAM does
 * (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_variables.html); a variable
 * the request does not have makes that one value not match. What a variable puts in is literal: `${*}`
 * is an asterisk, not a wildcard (that is what it is for), and so is any `*` or `?` of a value. A
 * variable naming a key the evaluator never sets (a web identity key, a tag) is refused like such a
 * condition key, and so is one naming a multivalued key (single-valued keys can be policy variables,
 * multivalued ones cannot: "Key points" of
 * https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_condition-single-vs-multi-valued-context-keys.html).
 *
 * NotPrincipal exempts a caller only when it names it the way AWS's page requires (see
 * CompiledPrincipal.exempts), and goes with Deny only.
 */
import { arnMatches, globMatches, LITERAL_ASTERISK, LITERAL_QUESTION_MARK } from './arn';
import { conditionKeyInfo } from './condition-keys';
import { type CompiledOperator, compileOperator } from './condition-operators';
import { PolicyDocumentError } from './policy-document-error';
import type { Principal } from './principals';

/** Request-context values by lower-cased key: one string or several (multivalued keys). */
export type RequestContext = Readonly<Record<string, string | readonly string[] | undefined>>;

/** How a resource policy's Principal element names the caller. */
export type PrincipalMatch =
  /** By name: `*`, its ARN, its role, its service. */
  | 'direct'
  /** Only as a member of an account named by id or root ARN (delegates to identity policies). */
  | 'account'
  | 'none';

export interface CompiledStatement {
  /** Sid, or `#<index>` when the statement has none. */
  readonly sid: string;
  readonly effect: 'Allow' | 'Deny';
  /** Action patterns as written (NotAction when `notAction`). */
  readonly actions: readonly string[];
  readonly notAction: boolean;
  /** Resource patterns as written (NotResource when `notResource`); absent: any. */
  readonly resources: readonly string[];
  readonly notResource: boolean;
  /** Whether the statement has a Condition element. */
  readonly conditional: boolean;
  matchesAction(action: string): boolean;
  matchesResource(resource: string, context: RequestContext): boolean;
  /** Resource policies only; identity policies apply to their holder. */
  matchesPrincipal(principal: Principal): PrincipalMatch;
  conditionHolds(context: RequestContext): boolean;
}

export type PolicyKind = 'identity' | 'resource';

export interface CompiledPolicy {
  /** Names the policy in messages and reports (`role MyRole: policy MyRoleDefaultPolicy`). */
  readonly name: string;
  readonly kind: PolicyKind;
  readonly statements: readonly CompiledStatement[];
}

const STATEMENT_KEYS = new Set([
  'Sid',
  'Effect',
  'Action',
  'NotAction',
  'Resource',
  'NotResource',
  'Principal',
  'NotPrincipal',
  'Condition',
]);

function stringList(value: unknown): string[] | undefined {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return value as string[];
  return undefined;
}

/** Condition values: strings, numbers and booleans, alone or in a list. */
function conditionValues(value: unknown): string[] | undefined {
  const scalar = (item: unknown) =>
    typeof item === 'string' || typeof item === 'number' || typeof item === 'boolean'
      ? String(item)
      : undefined;
  if (Array.isArray(value)) {
    const items = value.map(scalar);
    return items.every((item) => item !== undefined) ? (items as string[]) : undefined;
  }
  const single = scalar(value);
  return single === undefined ? undefined : [single];
}

const VARIABLE = /\$\{([^}]*)\}/g;

/** The special variables of https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_variables.html#policy-vars-specialchars. */
const SPECIAL_VARIABLES: Readonly<Record<string, string>> = {
  '*': LITERAL_ASTERISK,
  '?': LITERAL_QUESTION_MARK,
  $: '$',
};

/** A value put in by a variable: its `*` and `?` match only themselves. */
function literalValue(value: string): string {
  return value.replaceAll('*', LITERAL_ASTERISK).replaceAll('?', LITERAL_QUESTION_MARK);
}

/** The variables a text names (`${aws:username, 'x'}` -> `aws:username`), special ones aside. */
function variableNames(text: string): string[] {
  return [...text.matchAll(VARIABLE)]
    .map(([, inner = '']) => (inner.split(',', 1)[0] ?? '').trim())
    .filter((name) => SPECIAL_VARIABLES[name] === undefined);
}

/**
 * Replaces policy variables; undefined when one names a key the request does not have (and gives
 * no default). The result is a pattern: what the variables put in is literal (arn.ts).
 */
export function substituteVariables(text: string, context: RequestContext): string | undefined {
  if (!text.includes('${')) return text;
  let missing = false;
  const replaced = text.replace(VARIABLE, (_whole, inner: string) => {
    const [rawName = '', rawDefault] = inner.split(',', 2);
    const name = rawName.trim();
    const special = SPECIAL_VARIABLES[name];
    if (special !== undefined) return special;
    const value = context[name.toLowerCase()];
    if (typeof value === 'string') return literalValue(value);
    // "surround the default value with single quotes, and separate the variable text and the
    // default value with a comma and space" (#policy-vars-default-values).
    const fallback = rawDefault === undefined ? undefined : /^\s*'(.*)'\s*$/.exec(rawDefault)?.[1];
    if (fallback !== undefined) return literalValue(fallback);
    missing = true;
    return '';
  });
  return missing ? undefined : replaced;
}

/** Problems with the variables of a Resource or condition value (version 2012-10-17 only). */
function variableProblems(text: string, where: string): string[] {
  return variableNames(text).flatMap((name) => {
    const info = conditionKeyInfo(name);
    if (!info) {
      return [
        `policy variable \${${name}} (in ${where}) names a key the local evaluator does not set; see lib/local-runtime/iam/README.md for the keys it does`,
      ];
    }
    if (info.multivalued) {
      return [
        `policy variable \${${name}} (in ${where}) names a multivalued key, which IAM does not allow as a variable`,
      ];
    }
    return [];
  });
}

interface CompiledPrincipal {
  match(principal: Principal): PrincipalMatch;
  /**
   * NotPrincipal: does the element exempt the caller? AWS "might validate the account first, then
   * the role, and then the assumed-role user", so "you must also specify the account ARN of the
   * not-denied principal" and, for a session, the role too; a session must be named itself ("you
   * cannot use a wildcard (*) to mean all sessions")
   * (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_notprincipal.html).
   * Where AWS "might" deny, the local evaluator does: a user is exempt only with its account named,
   * a role session only with its own ARN, its role's and its account's; an account (the root) by
   * its id or root ARN; a service by its name.
   */
  exempts(principal: Principal): boolean;
}

function compilePrincipalElement(element: unknown, problems: string[]): CompiledPrincipal | undefined {
  if (element === '*') return { match: () => 'direct', exempts: () => true };
  if (typeof element !== 'object' || element === null || Array.isArray(element)) {
    problems.push('a Principal that is neither "*" nor an object');
    return undefined;
  }
  const tests: Array<(principal: Principal) => PrincipalMatch> = [];
  const named = {
    everyone: false,
    accounts: new Set<string>(),
    arns: new Set<string>(),
    services: new Set<string>(),
  };
  for (const [type, raw] of Object.entries(element)) {
    const names = stringList(raw);
    if (!names) {
      problems.push(`a ${type} principal that is not a string or a list of strings`);
      continue;
    }
    if (type === 'Service') {
      for (const name of names) named.services.add(name);
      tests.push((principal) =>
        principal.kind === 'service' && names.some((name) => name === principal.service) ? 'direct' : 'none',
      );
    } else if (type === 'AWS') {
      for (const name of names) {
        tests.push(awsPrincipalTest(name));
        const account = accountOfPrincipalName(name);
        if (name === '*') named.everyone = true;
        else if (account !== undefined) named.accounts.add(account);
        else named.arns.add(name);
      }
    } else {
      problems.push(`a ${type} principal (the local account has IAM principals and service principals only)`);
    }
  }
  return {
    match: (principal) => {
      let best: PrincipalMatch = 'none';
      for (const test of tests) {
        const found = test(principal);
        if (found === 'direct') return 'direct';
        if (found === 'account') best = 'account';
      }
      return best;
    },
    exempts: (principal) => {
      if (named.everyone) return true;
      switch (principal.kind) {
        case 'service':
          return named.services.has(principal.service);
        case 'root':
          return named.accounts.has(principal.accountId);
        case 'user':
          return named.arns.has(principal.arn) && named.accounts.has(principal.accountId);
        case 'role-session':
          return (
            named.arns.has(principal.arn) &&
            named.arns.has(principal.roleArn) &&
            named.accounts.has(principal.accountId)
          );
        case 'anonymous':
          return false;
      }
    },
  };
}

/** The account an `"AWS"` principal name stands for when it names one (an id or a root ARN). */
function accountOfPrincipalName(name: string): string | undefined {
  return /^\d{12}$/.test(name) ? name : /^arn:aws[a-z-]*:iam::(\d{12}):root$/.exec(name)?.[1];
}

/** One `"AWS"` principal: `*`, an account id or root ARN, a role, a role session or a user ARN. */
function awsPrincipalTest(name: string): (principal: Principal) => PrincipalMatch {
  if (name === '*') return () => 'direct';
  const account = accountOfPrincipalName(name);
  if (account !== undefined) {
    return (principal) => {
      if (principal.kind === 'service' || principal.kind === 'anonymous') return 'none';
      if (principal.accountId !== account) return 'none';
      return principal.kind === 'root' ? 'direct' : 'account';
    };
  }
  return (principal) => {
    if (principal.kind === 'service' || principal.kind === 'anonymous') return 'none';
    if (principal.arn === name) return 'direct';
    if (principal.kind === 'role-session' && principal.roleArn === name) return 'direct';
    return 'none';
  };
}

interface CompiledClause {
  readonly key: string;
  readonly values: readonly string[];
  readonly operator: CompiledOperator;
}

function compileConditionElement(
  element: unknown,
  substitute: boolean,
  problems: string[],
): CompiledClause[] | undefined {
  if (typeof element !== 'object' || element === null || Array.isArray(element)) {
    problems.push('a Condition that is not an object');
    return undefined;
  }
  const clauses: CompiledClause[] = [];
  for (const [operatorName, block] of Object.entries(element)) {
    if (typeof block !== 'object' || block === null || Array.isArray(block)) {
      problems.push(`condition operator ${operatorName} without a map of keys`);
      continue;
    }
    for (const [key, raw] of Object.entries(block as Record<string, unknown>)) {
      const values = conditionValues(raw);
      if (!values) {
        problems.push(`condition ${operatorName} on ${key}: values must be strings, numbers or booleans`);
        continue;
      }
      const info = conditionKeyInfo(key);
      if (!info) {
        problems.push(
          `condition key ${key} (under ${operatorName}) is not one the local evaluator sets; see lib/local-runtime/iam/README.md for the keys it does`,
        );
        continue;
      }
      if (substitute) {
        const found = values.flatMap((value) => variableProblems(value, `${operatorName} on ${key}`));
        if (found.length > 0) {
          problems.push(...found);
          continue;
        }
      }
      const compiled = compileOperator(operatorName, values);
      if (!compiled.ok) {
        problems.push(compiled.problem);
        continue;
      }
      if (info.multivalued && !compiled.setOperator && operatorName !== 'Null') {
        // IAM: a multivalued key needs ForAllValues or ForAnyValue; without one, AWS's policy
        // validation warns and the result is rarely what was meant.
        problems.push(
          `condition key ${key} is multivalued: use ForAllValues: or ForAnyValue: with ${operatorName}`,
        );
        continue;
      }
      clauses.push({ key: key.toLowerCase(), values, operator: compiled.operator });
    }
  }
  return clauses;
}

function evaluateClauses(
  clauses: readonly CompiledClause[],
  context: RequestContext,
  substitute: boolean,
): boolean {
  return clauses.every(({ key, values, operator }) => {
    const raw = context[key];
    const input = raw === undefined ? undefined : typeof raw === 'string' ? [raw] : raw;
    const policyValues = substitute
      ? values.flatMap((value) => {
          const replaced = substituteVariables(value, context);
          return replaced === undefined ? [] : [replaced];
        })
      : values;
    return operator(policyValues, input);
  });
}

function compileStatement(
  raw: unknown,
  index: number,
  kind: PolicyKind,
  substitute: boolean,
  problems: string[],
): CompiledStatement | undefined {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    problems.push(`statement #${index} is not an object`);
    return undefined;
  }
  const fields = raw as Record<string, unknown>;
  const sid = typeof fields.Sid === 'string' && fields.Sid !== '' ? fields.Sid : `#${index}`;
  const local: string[] = [];
  for (const key of Object.keys(fields)) if (!STATEMENT_KEYS.has(key)) local.push(`unknown element ${key}`);
  const effect = fields.Effect;
  if (effect !== 'Allow' && effect !== 'Deny')
    local.push(`Effect must be Allow or Deny, not ${String(effect)}`);
  const actions = stringList(fields.Action ?? fields.NotAction);
  if ((fields.Action === undefined) === (fields.NotAction === undefined) || !actions) {
    local.push('exactly one of Action and NotAction, a string or a list of strings');
  }
  const notAction = fields.NotAction !== undefined;
  const hasResource = fields.Resource !== undefined || fields.NotResource !== undefined;
  if (fields.Resource !== undefined && fields.NotResource !== undefined) {
    local.push('both Resource and NotResource');
  }
  const resources = hasResource ? stringList(fields.Resource ?? fields.NotResource) : ['*'];
  if (!resources) local.push('a Resource that is not a string or a list of strings');
  if (resources && substitute) {
    local.push(
      ...resources.flatMap((pattern) =>
        variableProblems(pattern, fields.NotResource === undefined ? 'Resource' : 'NotResource'),
      ),
    );
  }
  // IAM refuses an identity policy statement without a resource ("Policy statement must contain resources").
  if (kind === 'identity' && !hasResource) local.push('no Resource or NotResource');
  const notResource = fields.NotResource !== undefined;
  let principal: CompiledPrincipal | undefined;
  let notPrincipal = false;
  if (kind === 'identity') {
    if (fields.Principal !== undefined || fields.NotPrincipal !== undefined) {
      local.push('a Principal in an identity policy');
    }
  } else if (fields.Principal !== undefined && fields.NotPrincipal !== undefined) {
    local.push('both Principal and NotPrincipal');
  } else if (fields.Principal === undefined && fields.NotPrincipal === undefined) {
    local.push('no Principal (a resource-based policy names one)');
  } else {
    notPrincipal = fields.NotPrincipal !== undefined;
    principal = compilePrincipalElement(fields.Principal ?? fields.NotPrincipal, local);
    // "NotPrincipal must be used with "Effect":"Deny". Using it with "Effect":"Allow" is not supported"
    // (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_notprincipal.html).
    if (notPrincipal && effect === 'Allow')
      local.push('NotPrincipal with Allow (IAM supports it with Deny only)');
  }
  const clauses =
    fields.Condition === undefined ? [] : compileConditionElement(fields.Condition, substitute, local);
  if (local.length > 0 || !actions || !resources || !clauses) {
    problems.push(...local.map((problem) => `statement ${sid}: ${problem}`));
    return undefined;
  }
  return {
    sid,
    effect: effect as 'Allow' | 'Deny',
    actions,
    notAction,
    resources: hasResource ? resources : [],
    notResource,
    conditional: clauses.length > 0,
    matchesAction: (action) => actions.some((pattern) => globMatches(pattern, action, true)) !== notAction,
    matchesResource: (resource, context) => {
      const found = resources.some((pattern) => {
        const replaced = substitute ? substituteVariables(pattern, context) : pattern;
        if (replaced === undefined) return false;
        return replaced.startsWith('arn:') ? arnMatches(replaced, resource) : globMatches(replaced, resource);
      });
      return found !== notResource;
    },
    matchesPrincipal: (caller) => {
      if (!principal) return 'direct';
      if (notPrincipal) return principal.exempts(caller) ? 'none' : 'direct';
      return principal.match(caller);
    },
    conditionHolds: (context) => evaluateClauses(clauses, context, substitute),
  };
}

/**
 * Compiles a policy document (an object, or its JSON text). Throws a PolicyDocumentError naming the
 * policy and every problem found.
 */
export function compilePolicy(name: string, kind: PolicyKind, document: unknown): CompiledPolicy {
  let parsed = document;
  if (typeof document === 'string') {
    try {
      parsed = JSON.parse(document);
    } catch {
      throw new PolicyDocumentError(name, ['the policy is not JSON']);
    }
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new PolicyDocumentError(name, ['the policy is not a JSON object']);
  }
  const fields = parsed as Record<string, unknown>;
  const problems: string[] = [];
  for (const key of Object.keys(fields)) {
    if (key !== 'Version' && key !== 'Statement' && key !== 'Id') problems.push(`unknown element ${key}`);
  }
  const version = fields.Version;
  if (version !== undefined && version !== '2012-10-17' && version !== '2008-10-17') {
    problems.push(`Version ${String(version)} (2012-10-17 or 2008-10-17)`);
  }
  const raw = fields.Statement;
  const statements = Array.isArray(raw) ? raw : raw === undefined ? [] : [raw];
  if (statements.length === 0) problems.push('no Statement');
  const substitute = version === '2012-10-17';
  const compiled = statements.map((statement, index) =>
    compileStatement(statement, index, kind, substitute, problems),
  );
  if (problems.length > 0) throw new PolicyDocumentError(name, problems);
  return { name, kind, statements: compiled as CompiledStatement[] };
}
