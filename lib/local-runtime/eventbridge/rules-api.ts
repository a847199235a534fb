/**
 * EventBridge's rule management API on the runtime's EventBridge endpoint (AWS JSON protocol):
 * PutRule, PutTargets, RemoveTargets, DeleteRule, DescribeRule, ListRules, ListTargetsByRule,
 * DisableRule and EnableRule, so a consumer the templates do not know can subscribe to a bus at run
 * time (`aws events put-rule` and `put-targets` to its own queue), with EventBridge's answers and
 * exceptions. Rules from the templates are listed and may be changed the same way: disabling a
 * schedule rule stops its runs (an operator pausing a scheduled function, a test stopping one).
 */

import type {
  DeleteRuleRequest,
  DescribeRuleRequest,
  DescribeRuleResponse,
  DisableRuleRequest,
  EnableRuleRequest,
  ListRulesRequest,
  ListRulesResponse,
  ListTargetsByRuleRequest,
  ListTargetsByRuleResponse,
  PutRuleRequest,
  PutRuleResponse,
  PutTargetsRequest,
  PutTargetsResponse,
  RemoveTargetsRequest,
  RemoveTargetsResponse,
  Target,
} from '@aws-sdk/client-eventbridge';
import { AwsApiError } from '../protocol/aws-api-error';
import { type AwsJsonOperation, typedOperation } from '../protocol/aws-json-server';
import type { LocalEventBridge } from './event-buses';
import { type EventRule, type RuleTarget, ruleArn, ruleTarget } from './event-buses';

/** EventBridge's quota of targets per rule. */
const MAX_TARGETS_PER_RULE = 5;
const RULE_NAME = /^[.\-_A-Za-z0-9]{1,64}$/;

export interface EventBridgeRulesOptions {
  readonly region: string;
  readonly accountId: string;
  /** Whether the runtime delivers to an ARN (a target it cannot reach is accepted and named). */
  readonly canDeliver: (arn: string) => boolean;
  readonly onProblem: (message: string) => void;
}

const validation = (message: string) => new AwsApiError('ValidationException', message);

export function eventBridgeRuleOperations(
  bridge: LocalEventBridge,
  options: EventBridgeRulesOptions,
): Record<string, AwsJsonOperation> {
  const busOf = (body: Record<string, unknown>): string => {
    const reference =
      typeof body.EventBusName === 'string' && body.EventBusName !== '' ? body.EventBusName : 'default';
    const name = reference.startsWith('arn:') ? reference.slice(reference.lastIndexOf('/') + 1) : reference;
    if (!bridge.hasBus(name))
      throw new AwsApiError('ResourceNotFoundException', `Event bus ${name} does not exist.`);
    return name;
  };
  const ruleOf = (body: Record<string, unknown>, nameField = 'Rule'): EventRule => {
    const busName = busOf(body);
    const name = String(body[nameField] ?? '');
    const rule = bridge.rulesOn(busName).find((known) => known.name === name);
    if (!rule)
      throw new AwsApiError(
        'ResourceNotFoundException',
        `Rule ${name} does not exist on EventBus ${busName}.`,
      );
    return rule;
  };
  return {
    PutRule: typedOperation<PutRuleRequest, PutRuleResponse>((body) => {
      const busName = busOf(body);
      const name = String(body.Name ?? '');
      if (!RULE_NAME.test(name))
        throw validation(
          `1 validation error detected: Value '${name}' at 'name' failed to satisfy constraint`,
        );
      if (body.ScheduleExpression !== undefined) {
        throw validation(
          'ScheduleExpression is not supported by the local runtime for rules made at run time',
        );
      }
      const pattern = parsePattern(body.EventPattern);
      const existing = bridge.rulesOn(busName).find((known) => known.name === name);
      const arn = ruleArn(options.region, options.accountId, busName, name);
      bridge.setRule({
        logicalId: existing?.logicalId ?? name,
        name,
        arn,
        busName,
        pattern,
        ...(body.State === 'DISABLED' ? { disabled: true } : {}),
        targets: existing?.targets ?? [],
      });
      return { RuleArn: arn };
    }),
    PutTargets: typedOperation<PutTargetsRequest, PutTargetsResponse>((body) => {
      const rule = ruleOf(body);
      const given = Array.isArray(body.Targets) ? (body.Targets as Record<string, unknown>[]) : [];
      if (given.length === 0 || given.length > 10) throw validation('Targets must hold 1 to 10 targets');
      const targets = given.map((raw) => checkedTarget(ruleTarget(raw)));
      const merged = [
        ...rule.targets.filter((known) => !targets.some((target) => target.id === known.id)),
        ...targets,
      ];
      if (merged.length > MAX_TARGETS_PER_RULE) {
        throw new AwsApiError(
          'LimitExceededException',
          `The requested resource exceeds the maximum number allowed (${MAX_TARGETS_PER_RULE} targets per rule).`,
        );
      }
      for (const target of targets) {
        if (!options.canDeliver(target.arn)) {
          options.onProblem(`rule ${rule.name} target ${target.id} (${target.arn}) is not delivered locally`);
        }
      }
      bridge.setRule({ ...rule, targets: merged });
      return { FailedEntryCount: 0, FailedEntries: [] };
    }),
    RemoveTargets: typedOperation<RemoveTargetsRequest, RemoveTargetsResponse>((body) => {
      const rule = ruleOf(body);
      const ids = Array.isArray(body.Ids) ? body.Ids.map(String) : [];
      bridge.setRule({ ...rule, targets: rule.targets.filter((target) => !ids.includes(target.id)) });
      return { FailedEntryCount: 0, FailedEntries: [] };
    }),
    DeleteRule: typedOperation<DeleteRuleRequest, object>((body) => {
      const busName = busOf(body);
      const rule = bridge.rulesOn(busName).find((known) => known.name === body.Name);
      // Deleting a rule that is not there succeeds, as on AWS.
      if (!rule) return {};
      if (rule.targets.length > 0) throw validation("Rule can't be deleted since it has targets.");
      bridge.removeRule(busName, rule.name);
      return {};
    }),
    DescribeRule: typedOperation<DescribeRuleRequest, DescribeRuleResponse>((body) =>
      describeRule(ruleOf(body, 'Name')),
    ),
    ListRules: typedOperation<ListRulesRequest, ListRulesResponse>((body) => {
      const prefix = typeof body.NamePrefix === 'string' ? body.NamePrefix : '';
      return {
        Rules: bridge
          .rulesOn(busOf(body))
          .filter((rule) => rule.name.startsWith(prefix))
          .map(describeRule),
      };
    }),
    ListTargetsByRule: typedOperation<ListTargetsByRuleRequest, ListTargetsByRuleResponse>((body) => ({
      Targets: ruleOf(body).targets.map(describeTarget),
    })),
    DisableRule: typedOperation<DisableRuleRequest, object>((body) => {
      const { disabled: _state, ...rule } = ruleOf(body, 'Name');
      bridge.setRule({ ...rule, disabled: true });
      return {};
    }),
    EnableRule: typedOperation<EnableRuleRequest, object>((body) => {
      const { disabled: _state, ...rule } = ruleOf(body, 'Name');
      bridge.setRule(rule);
      return {};
    }),
  };
}

function parsePattern(pattern: unknown): unknown {
  if (pattern === undefined)
    throw validation('Parameter EventPattern is not valid (the local runtime needs one).');
  try {
    const parsed: unknown = JSON.parse(String(pattern));
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      throw new Error('not an object');
    return parsed;
  } catch {
    throw new AwsApiError(
      'InvalidEventPatternException',
      'Event pattern is not valid. Reason: not a JSON object',
    );
  }
}

/**
 * A FIFO queue target needs SqsParameters.MessageGroupId, as on AWS. EventBridge sends no
 * deduplication id: AWS requires content-based deduplication on the queue, and so does the
 * runtime's SQS service (a delivery to a queue without it fails and is named).
 */
function checkedTarget(target: RuleTarget): RuleTarget {
  if (!RULE_NAME.test(target.id)) throw validation(`Target id '${target.id}' is not valid.`);
  if (target.arn.startsWith('arn:aws:sqs:') && target.arn.endsWith('.fifo') && !target.messageGroupId) {
    throw validation(`Parameter(s) SqsParameters must be specified for target: ${target.id}.`);
  }
  return target;
}

function describeRule(rule: EventRule): DescribeRuleResponse {
  return {
    Name: rule.name,
    Arn: rule.arn,
    EventBusName: rule.busName,
    State: rule.disabled ? 'DISABLED' : 'ENABLED',
    ...(rule.pattern !== undefined ? { EventPattern: JSON.stringify(rule.pattern) } : {}),
    ...(rule.scheduleExpression !== undefined ? { ScheduleExpression: rule.scheduleExpression } : {}),
  };
}

function describeTarget(target: RuleTarget): Target {
  return {
    Id: target.id,
    Arn: target.arn,
    ...(target.input !== undefined ? { Input: target.input } : {}),
    ...(target.inputPath !== undefined ? { InputPath: target.inputPath } : {}),
    ...(target.inputTransformer ? { InputTransformer: target.inputTransformer } : {}),
    ...(target.messageGroupId ? { SqsParameters: { MessageGroupId: target.messageGroupId } } : {}),
  };
}
