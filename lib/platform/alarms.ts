import { Duration, Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as cloudwatchActions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as events from 'aws-cdk-lib/aws-events';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct, type IConstruct, type IValidation } from 'constructs';
import {
  ALARM_NAME_PATTERN,
  type AlarmSpec,
  alarmNamePrefix,
  SQS_METRICS_NAMESPACE,
  SQS_QUEUE_DIMENSION,
  SqsMetric,
} from '../../lambdas/shared/alarm-spec';
import { referencedResource, resourcesByLogicalId } from './guardrails/references';

/** Alarm periods CloudWatch accepts: 10, 20 or 30 s (high-resolution metrics) or whole minutes. */
export function validateAlarmPeriod(owner: string, seconds: number): void {
  const valid =
    Number.isInteger(seconds) && ([10, 20, 30].includes(seconds) || (seconds >= 60 && seconds % 60 === 0));
  if (!valid) {
    throw new Error(
      `${owner}: an alarm period must be 10, 20, 30 or a multiple of 60 seconds, got ${seconds}`,
    );
  }
}

export interface OperatorAlarmsProps {
  /** Where every alarm notifies the operator, when it fires and when it clears. */
  readonly topic: sns.ITopic;
  /** Namespace of the wing's custom metrics (its functions' POWERTOOLS_METRICS_NAMESPACE). */
  readonly namespace: string;
  /**
   * Period of every alarm (on a custom metric or an AWS service's), in seconds (10, 20, 30 or a multiple of 60; under 60
   * only on high-resolution metrics).
   */
  readonly periodSeconds: number;
}

/**
 * A wing's CloudWatch alarms, each from a contract entry (AlarmSpec), all notifying the operator
 * topic: `addMetricAlarm` for the wing's own metrics, `alarmDeadLetterQueues` for every
 * dead-letter queue of the stack, found in the synthesized resources (redrive targets and
 * on-failure destinations), so a queue added later cannot be forgotten (DeadLetterAlarmsGuardrail
 * fails the synth if one is).
 */
export class OperatorAlarms extends Construct {
  readonly alarms: cloudwatch.Alarm[] = [];
  private readonly topicAction: cloudwatch.IAlarmAction;
  private readonly props: OperatorAlarmsProps;

  constructor(scope: Construct, id: string, props: OperatorAlarmsProps) {
    super(scope, id);
    validateAlarmPeriod(`OperatorAlarms ${this.node.path}`, props.periodSeconds);
    this.props = props;
    this.topicAction = new cloudwatchActions.SnsAction(props.topic);
  }

  /** One alarm on one of the wing's custom metrics, named `<stack>-<spec.name>`. */
  addMetricAlarm(spec: AlarmSpec): cloudwatch.Alarm {
    return this.addAlarm(
      spec.name,
      spec,
      new cloudwatch.Metric({
        namespace: this.props.namespace,
        metricName: spec.metric,
        ...(spec.dimensions && { dimensionsMap: { ...spec.dimensions } }),
        statistic: spec.statistic,
        period: Duration.seconds(this.props.periodSeconds),
      }),
    );
  }

  /**
   * One alarm per dead-letter queue of the stack, named `<stack>-<spec.name><queue path>`. Call it
   * once every construct of the stack exists.
   */
  alarmDeadLetterQueues(spec: AlarmSpec<SqsMetric>): cloudwatch.Alarm[] {
    return deadLetterQueuesOf(Stack.of(this)).map((queue) =>
      this.addServiceMetricAlarm(
        spec,
        SQS_METRICS_NAMESPACE,
        { [SQS_QUEUE_DIMENSION]: queue.attrQueueName },
        constructPathSuffix(queue),
      ),
    );
  }

  /**
   * One alarm on a metric of another namespace (an AWS service's: AWS/SQS per queue, AWS/Lambda per
   * function, AWS/ApiGateway per API), named `<stack>-<spec.name><nameSuffix>`.
   */
  addServiceMetricAlarm(
    spec: AlarmSpec,
    namespace: string,
    dimensions: Readonly<Record<string, string>>,
    nameSuffix = '',
  ): cloudwatch.Alarm {
    return this.addAlarm(
      `${spec.name}${nameSuffix}`,
      spec,
      new cloudwatch.Metric({
        namespace,
        metricName: spec.metric,
        dimensionsMap: { ...dimensions },
        statistic: spec.statistic,
        period: Duration.seconds(this.props.periodSeconds),
      }),
    );
  }

  private addAlarm(name: string, spec: AlarmSpec, metric: cloudwatch.Metric): cloudwatch.Alarm {
    if (!ALARM_NAME_PATTERN.test(name)) {
      throw new Error(
        `OperatorAlarms ${this.node.path}: alarm name '${name}' must match ${ALARM_NAME_PATTERN}`,
      );
    }
    const evaluationPeriods = spec.evaluationPeriods ?? 1;
    const datapointsToAlarm = spec.datapointsToAlarm ?? evaluationPeriods;
    if (datapointsToAlarm < 1 || datapointsToAlarm > evaluationPeriods) {
      throw new Error(
        `OperatorAlarms ${this.node.path}: alarm '${name}' needs 1 <= datapointsToAlarm <= evaluationPeriods`,
      );
    }
    const alarm = new cloudwatch.Alarm(this, name, {
      alarmName: `${alarmNamePrefix(Stack.of(this).stackName)}${name}`,
      alarmDescription: `${spec.description} What to do: ${spec.action}`,
      metric,
      threshold: spec.threshold,
      comparisonOperator: spec.comparison as cloudwatch.ComparisonOperator,
      evaluationPeriods,
      datapointsToAlarm,
      treatMissingData: spec.treatMissingData as cloudwatch.TreatMissingData,
      actionsEnabled: true,
    });
    alarm.addAlarmAction(this.topicAction);
    alarm.addOkAction(this.topicAction);
    this.alarms.push(alarm);
    return alarm;
  }
}

/**
 * A construct's path below its stack (scopes: app, stack, ...) in letters and digits, without the
 * `Resource` ids: the suffix of the alarm names made per resource.
 */
export function constructPathSuffix(node: IConstruct): string {
  return node.node.scopes
    .slice(2)
    .map((scope) => scope.node.id)
    .filter((id) => id !== 'Resource')
    .join('')
    .replace(/[^A-Za-z0-9]/g, '');
}

/**
 * Every SQS queue of the stack that receives what something else gave up on: the redrive target
 * of a queue, the on-failure destination of an event source mapping or of asynchronous
 * invocations, the dead-letter queue of an EventBridge rule target.
 */
export function deadLetterQueuesOf(scope: IConstruct): sqs.CfnQueue[] {
  const stack = Stack.of(scope);
  const byLogicalId = resourcesByLogicalId(scope);
  const found = new Set<sqs.CfnQueue>();
  const add = (reference: unknown) => {
    const target = referencedResource(reference, byLogicalId);
    if (target instanceof sqs.CfnQueue) found.add(target);
  };
  for (const node of byLogicalId.values()) {
    if (node instanceof sqs.CfnQueue) {
      const redrive = stack.resolve(node.redrivePolicy) as { deadLetterTargetArn?: unknown } | undefined;
      add(redrive?.deadLetterTargetArn);
    } else if (node instanceof lambda.CfnEventSourceMapping || node instanceof lambda.CfnEventInvokeConfig) {
      const destination = stack.resolve(node.destinationConfig) as
        | { onFailure?: { destination?: unknown } }
        | undefined;
      add(destination?.onFailure?.destination);
    } else if (node instanceof events.CfnRule) {
      const targets = (stack.resolve(node.targets) ?? []) as { deadLetterConfig?: { arn?: unknown } }[];
      for (const target of targets) add(target.deadLetterConfig?.arn);
    }
  }
  return [...found].sort((a, b) => a.node.path.localeCompare(b.node.path));
}

/**
 * Fails synth when a dead-letter queue of the stack (deadLetterQueuesOf) has no alarm on its
 * depth (AWS/SQS ApproximateNumberOfMessagesVisible for its QueueName) with an alarm action:
 * a dead letter nobody is told about is work lost in silence.
 */
export class DeadLetterAlarmsGuardrail implements IValidation {
  constructor(private readonly scope: IConstruct) {}

  validate(): string[] {
    const stack = Stack.of(this.scope);
    const byLogicalId = resourcesByLogicalId(this.scope);
    const alarmed = new Set<sqs.CfnQueue>();
    for (const node of byLogicalId.values()) {
      if (!(node instanceof cloudwatch.CfnAlarm)) continue;
      const actions = stack.resolve(node.alarmActions) as unknown[] | undefined;
      if (
        node.namespace !== SQS_METRICS_NAMESPACE ||
        node.metricName !== SqsMetric.ApproximateNumberOfMessagesVisible ||
        (actions ?? []).length === 0
      ) {
        continue;
      }
      const dimensions = (stack.resolve(node.dimensions) ?? []) as { name?: string; value?: unknown }[];
      for (const dimension of dimensions) {
        if (dimension.name !== SQS_QUEUE_DIMENSION) continue;
        const queue = referencedResource(dimension.value, byLogicalId);
        if (queue instanceof sqs.CfnQueue) alarmed.add(queue);
      }
    }
    return deadLetterQueuesOf(this.scope)
      .filter((queue) => !alarmed.has(queue))
      .map(
        (queue) =>
          `Dead-letter queue ${queue.node.path} has no alarm on its depth (${SQS_METRICS_NAMESPACE} ${SqsMetric.ApproximateNumberOfMessagesVisible}) with an action: a message there would wait unseen; alarm it (OperatorAlarms.alarmDeadLetterQueues)`,
      );
  }
}
