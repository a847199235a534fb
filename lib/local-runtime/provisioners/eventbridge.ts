/**
 * EventBridge: the PutEvents API and rule management (../eventbridge/rules-api.ts) on the runtime's AWS
 * JSON protocol server, event buses, rules with event patterns or rate schedules, and EventBridge
 * Scheduler schedules, delivering to every kind of target the runtime has deliveries for. Rules targeting a function also feed its
 * fault-hook copies.
 */

import type { PutEventsRequest, PutEventsResponse } from '@aws-sdk/client-eventbridge';
import {
  type EventRule,
  LocalEventBridge,
  parseRateExpression,
  ruleTarget,
} from '../eventbridge/event-buses';
import { eventBridgeChecks } from '../eventbridge/iam-requests';
import { eventBridgeRuleOperations } from '../eventbridge/rules-api';
import { replicaSuffix } from '../fault-hooks';
import { EVENTBRIDGE_DELIVERY } from '../metering';
import { authorizeJsonRequest } from '../protocol/authorize-json-request';
import { startAwsJsonServer, typedOperation } from '../protocol/aws-json-server';
import type { ListenContext, Provisioner, RuntimeContext, StackContext } from '../provisioning';
import type { PutEventsOutcome } from '../stepfunctions';
import type { LambdaProvisioner } from './lambda';
import { arnName, asRecord, asString } from './values';

const BUS = 'AWS::Events::EventBus';
const RULE = 'AWS::Events::Rule';
const SCHEDULE = 'AWS::Scheduler::Schedule';

export class EventBridgeProvisioner implements Provisioner {
  readonly name = 'EventBridge';
  readonly resourceTypes = {
    runs: [BUS, RULE, SCHEDULE],
    inert: {
      'AWS::Events::EventBusPolicy': 'event bus policies are not enforced locally',
      // Schemas document events for code generation and discovery; nothing routes through them.
      'AWS::EventSchemas::*': 'the schema registry is not served locally',
    },
  };
  private eventBridge: LocalEventBridge | undefined;

  constructor(private readonly lambda: LambdaProvisioner) {}

  private get bus(): LocalEventBridge {
    if (!this.eventBridge) throw new Error('EventBridge is not started yet');
    return this.eventBridge;
  }

  /** PutEvents, for the Step Functions integration. */
  async putEvents(entries: readonly object[]): Promise<PutEventsOutcome> {
    return (await this.bus.putEvents(entries as Record<string, unknown>[])) as unknown as PutEventsOutcome;
  }

  async listen(context: ListenContext): Promise<void> {
    const { meter } = context;
    const bus = new LocalEventBridge({
      region: context.region,
      accountId: context.accountId,
      clock: context.clock,
      // As its RoleArn, else as events.amazonaws.com for the rule: the target's resource policy
      // (a function's permissions, a queue's or topic's policy) must allow it, as on AWS
      // (https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-use-resource-based.html).
      deliver: (target, input, rule) =>
        context.deliveries.deliver(target.arn, input, {
          deliveredBy: EVENTBRIDGE_DELIVERY,
          deliveredAs: target.roleArn
            ? { kind: 'role', roleArn: target.roleArn }
            : { kind: 'service', service: 'events.amazonaws.com', sourceArn: rule.arn },
          ...(target.messageGroupId ? { messageGroupId: target.messageGroupId } : {}),
        }),
      onProblem: (message) => context.problem(message),
      ...(meter && {
        onEventAccepted: (busName: string, bytes: number) => meter.eventAccepted(busName, bytes),
      }),
    });
    this.eventBridge = bus;
    const server = await startAwsJsonServer(
      'EventBridge',
      {
        PutEvents: typedOperation<PutEventsRequest, PutEventsResponse>((body) =>
          bus.putEvents((body.Entries ?? []) as Record<string, unknown>[]),
        ),
        ...eventBridgeRuleOperations(bus, {
          region: context.region,
          accountId: context.accountId,
          canDeliver: (arn) => context.deliveries.canDeliver(arn),
          onProblem: (message) => context.problem(`EventBridge ${message}`),
        }),
      },
      {
        clock: context.clock,
        // Every request authenticated (SigV4, signing name events) and authorized (../eventbridge/iam-requests.ts).
        // https://docs.aws.amazon.com/eventbridge/latest/APIReference/CommonErrors.html
        authorize: (operationName, body, received) =>
          authorizeJsonRequest(
            context.iam,
            { region: context.region, service: 'events' },
            received,
            eventBridgeChecks(operationName, body, context),
          ),
      },
    );
    context.stopWith(server, 'backend');
    context.endpoints.announce('EVENTBRIDGE', server.endpoint);
  }

  async provision(context: StackContext): Promise<void> {
    for (const [logicalId] of context.ofType(BUS)) {
      const name = context.resolver.physicalName(logicalId);
      this.bus.addBus(name);
      context.meter?.describe('buses', name, { stackName: context.stack.stackName, logicalId });
    }
  }

  async wire(context: StackContext): Promise<void> {
    for (const [logicalId] of context.ofType(RULE)) {
      const rule = eventRule(context, logicalId);
      if (!rule) continue;
      this.bus.addRule(rule);
      for (const copy of this.ruleReplicas(rule)) this.bus.addRule(copy);
      for (const target of rule.targets) {
        if (!context.deliveries.canDeliver(target.arn)) {
          context.named(logicalId, RULE, `target ${target.id} (${target.arn}) is not delivered locally`);
        }
      }
    }
    for (const [logicalId] of context.ofType(SCHEDULE)) {
      const properties = context.resolver.properties(logicalId);
      if (properties.State === 'DISABLED') continue;
      const name = context.resolver.physicalName(logicalId);
      const target = asRecord(properties.Target);
      try {
        this.bus.addRule({
          logicalId,
          name,
          arn: `arn:aws:scheduler:${context.region}:${context.accountId}:schedule/default/${name}`,
          busName: 'default',
          rateMillis: parseRateExpression(String(properties.ScheduleExpression)),
          targets: [{ id: 'Target', arn: String(target.Arn), input: asString(target.Input) ?? '{}' }],
        });
      } catch (error) {
        context.named(logicalId, SCHEDULE, (error as Error).message);
      }
    }
  }

  async start(context: RuntimeContext): Promise<void> {
    context.stopWith(this.bus, 'producer');
    this.bus.startSchedules();
  }

  /** Fault hook functionReplicas: a copy of the rule per copy of the functions it targets. */
  private ruleReplicas(rule: EventRule): EventRule[] {
    const copies: EventRule[] = [];
    for (let replica = 1; ; replica += 1) {
      const targets = rule.targets.flatMap((target) => {
        const copy = this.lambda.replicasOf(target.arn)[replica - 1];
        return copy ? [{ ...target, arn: copy.functionArn }] : [];
      });
      if (targets.length === 0) return copies;
      const suffix = replicaSuffix(replica);
      copies.push({
        ...rule,
        logicalId: `${rule.logicalId}${suffix}`,
        name: `${rule.name}-${suffix}`,
        targets,
      });
    }
  }
}

function eventRule(context: StackContext, logicalId: string): EventRule | undefined {
  const { resolver } = context;
  const properties = resolver.properties(logicalId);
  const busReference = asString(properties.EventBusName) ?? 'default';
  const targets = (Array.isArray(properties.Targets) ? properties.Targets : []).map((raw) =>
    ruleTarget(asRecord(raw)),
  );
  let rateMillis: number | undefined;
  if (properties.ScheduleExpression !== undefined) {
    try {
      rateMillis = parseRateExpression(String(properties.ScheduleExpression));
    } catch (error) {
      context.named(logicalId, RULE, (error as Error).message);
      return undefined;
    }
  }
  return {
    logicalId,
    name: resolver.physicalName(logicalId),
    arn: String(resolver.context.getAtt(logicalId, 'Arn')),
    busName: busReference.startsWith('arn:') ? arnName(busReference) : busReference,
    pattern: properties.EventPattern,
    rateMillis,
    ...(rateMillis !== undefined ? { scheduleExpression: String(properties.ScheduleExpression) } : {}),
    // Kept, not dropped: EnableRule may turn it on at run time, as on AWS.
    ...(properties.State === 'DISABLED' ? { disabled: true } : {}),
    targets,
  };
}
