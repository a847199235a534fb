/**
 * SNS subscription filter policies. Their matching is EventBridge's event-pattern matching
 * (../eventbridge/event-pattern.ts: exact values, prefix, suffix, anything-but, numeric, exists, equals-ignore-case,
 * $or), applied to what SNS matches: with FilterPolicyScope MessageAttributes (the default) the
 * message attributes as values (message-attributes.ts: Number attributes as numbers, String.Array
 * attributes by element, Binary ones never), with MessageBody the JSON body. What differs is which
 * policies SNS accepts, checked here when a subscription is made.
 */
import { matchesEventPattern } from '../eventbridge/event-pattern';
import { invalidParameter, parseJsonAttribute } from './errors';
import { filterValues, type SnsMessageAttributes } from './message-attributes';

export type FilterPolicyScope = 'MessageAttributes' | 'MessageBody';

export interface FilterPolicy {
  readonly policy: Readonly<Record<string, unknown>>;
  readonly scope: FilterPolicyScope;
}

/** The operators SNS filter policies accept that the local matcher implements. */
const OPERATORS = ['prefix', 'suffix', 'anything-but', 'numeric', 'exists', 'equals-ignore-case'];

const invalid = (message: string) => invalidParameter(`FilterPolicy: ${message}`);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A subscription's FilterPolicy and FilterPolicyScope attributes (JSON text, as the API and
 * CloudFormation may give them, or an object), or InvalidParameter as SNS answers.
 */
export function parseFilterPolicy(policy: unknown, scope: unknown): FilterPolicy | undefined {
  if (policy === undefined || policy === null || policy === '') return undefined;
  const scopeName = scope === undefined || scope === null || scope === '' ? 'MessageAttributes' : scope;
  if (scopeName !== 'MessageAttributes' && scopeName !== 'MessageBody') {
    throw invalidParameter(
      `FilterPolicyScope: Invalid value [${String(scope)}]. Please use either MessageBody or MessageAttributes`,
    );
  }
  const parsed = parseJsonAttribute(policy, 'FilterPolicy');
  if (!isObject(parsed)) throw invalid('Filter policy must be a JSON object');
  checkPolicy(parsed, scopeName);
  return { policy: parsed, scope: scopeName };
}

function checkPolicy(policy: Record<string, unknown>, scope: FilterPolicyScope): void {
  for (const [key, rule] of Object.entries(policy)) {
    if (key === '$or') {
      if (!Array.isArray(rule) || rule.length < 2 || !rule.every(isObject)) {
        throw invalid('$or must be a list of at least two filter policies');
      }
      for (const alternative of rule) checkPolicy(alternative, scope);
      continue;
    }
    if (isObject(rule)) {
      if (scope === 'MessageAttributes') {
        throw invalid(
          `Filter policy scope MessageAttributes does not support nested filter policy (key ${key})`,
        );
      }
      checkPolicy(rule, scope);
      continue;
    }
    if (!Array.isArray(rule)) throw invalid(`"${key}" must be an object or an array`);
    for (const condition of rule) {
      if (!isObject(condition)) continue;
      const operator = Object.keys(condition)[0] ?? '';
      if (!OPERATORS.includes(operator)) {
        throw invalid(`Unrecognized match type ${operator} (supported locally: ${OPERATORS.join(', ')})`);
      }
    }
  }
}

/** Whether a message passes a subscription's filter policy (no policy: every message does). */
export function matchesFilterPolicy(
  filter: FilterPolicy | undefined,
  message: string,
  attributes: SnsMessageAttributes,
): boolean {
  if (!filter) return true;
  if (filter.scope === 'MessageAttributes')
    return matchesEventPattern(filter.policy, filterValues(attributes));
  let body: unknown;
  try {
    body = JSON.parse(message);
  } catch {
    // A body that is not JSON has no properties to match: only an empty policy passes it.
    return Object.keys(filter.policy).length === 0;
  }
  return matchesEventPattern(filter.policy, body);
}
