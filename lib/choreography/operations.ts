import { Duration, Stack } from 'aws-cdk-lib';
import type * as apigw from 'aws-cdk-lib/aws-apigateway';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import {
  CHOREOGRAPHY_METRICS_NAMESPACE,
  DECISION_DIMENSION,
  DELIVERY_API_5XX_ALARM,
  DELIVERY_DEAD_LETTER_QUEUE_ALARM,
  DeliveryMetric,
  oldestMessageAgeAlarm,
  REASON_CODE_DIMENSION,
  RELAY_ITERATOR_AGE_ALARM,
  remediationGiveUpAlarms,
  ServiceName,
} from '../../lambdas/choreography/contracts';
import {
  SERVICE_DIMENSION,
  SQS_METRICS_NAMESPACE,
  SQS_QUEUE_DIMENSION,
} from '../../lambdas/shared/alarm-spec';
import { pascalCase } from '../../lambdas/shared/pascal-case';
import { constructPathSuffix, deadLetterQueuesOf, OperatorAlarms } from '../platform/alarms';
import { queueVisibilitySeconds } from '../platform/guardrails/queue-visibility-seconds';
import { resourcesByLogicalId } from '../platform/guardrails/references';
import type { LambdaFunction } from '../platform/lambda-function';
import type { OperatorAlerts } from '../platform/operator-alerts';

export interface DeliveryOperationsProps {
  /** The operator alerts: every alarm notifies their topic. */
  readonly alerts: OperatorAlerts;
  /** The outbox relays by service: each gets an iterator-age (outbox lag) alarm. */
  readonly relays: Readonly<Record<string, { readonly relay: LambdaFunction }>>;
  /** The delivery API: its stage gets a 5xx alarm. */
  readonly api: apigw.RestApi;
  /** Alarm and graph period, seconds (PlatformSettings.alarmPeriodSeconds). */
  readonly periodSeconds: number;
}

/** The dashboard's name after `<stack>-`. */
export const DELIVERY_DASHBOARD_NAME_SUFFIX = 'DeliveryFlow';

/**
 * Operational visibility of drone delivery (docs/operations.md): an alarm on every dead-letter
 * queue, on remediation's give-ups per reason code, on each outbox relay's iterator age (outbox
 * lag), on the oldest message of each FIFO work queue (the ingestion queue's is the read model's
 * lag) and on the API's 5xx, all notifying the operator topic; and one dashboard. Create it after
 * every other construct of the stack: the queues are found among them.
 */
export class DeliveryOperations extends Construct {
  readonly alarms: OperatorAlarms;
  readonly dashboard: cloudwatch.Dashboard;

  constructor(scope: Construct, id: string, props: DeliveryOperationsProps) {
    super(scope, id);
    if (Object.keys(props.relays).length === 0) {
      throw new Error(`DeliveryOperations ${this.node.path}: relays must name at least one outbox relay`);
    }
    props.alerts.allowCloudWatchAlarms();
    const alarms = new OperatorAlarms(this, 'Alarms', {
      topic: props.alerts.topic,
      namespace: CHOREOGRAPHY_METRICS_NAMESPACE,
      periodSeconds: props.periodSeconds,
    });
    this.alarms = alarms;
    for (const spec of remediationGiveUpAlarms()) alarms.addMetricAlarm(spec);
    alarms.alarmDeadLetterQueues(DELIVERY_DEAD_LETTER_QUEUE_ALARM);
    const deadLetterQueues = new Set(deadLetterQueuesOf(Stack.of(this)));
    for (const queue of fifoWorkQueuesOf(Stack.of(this)).filter((queue) => !deadLetterQueues.has(queue))) {
      alarms.addServiceMetricAlarm(
        oldestMessageAgeAlarm(retryWindowSeconds(queue)),
        SQS_METRICS_NAMESPACE,
        { [SQS_QUEUE_DIMENSION]: queue.attrQueueName },
        constructPathSuffix(queue),
      );
    }
    for (const [service, { relay }] of Object.entries(props.relays).sort(([a], [b]) => a.localeCompare(b))) {
      alarms.addServiceMetricAlarm(
        RELAY_ITERATOR_AGE_ALARM,
        'AWS/Lambda',
        { FunctionName: relay.function.functionName },
        pascalCase(service),
      );
    }
    alarms.addServiceMetricAlarm(DELIVERY_API_5XX_ALARM, 'AWS/ApiGateway', {
      ApiName: props.api.restApiName,
      Stage: props.api.deploymentStage.stageName,
    });

    const period = Duration.seconds(props.periodSeconds);
    const metric = (name: DeliveryMetric, service: string | undefined, statistic: string, label: string) =>
      new cloudwatch.Metric({
        namespace: CHOREOGRAPHY_METRICS_NAMESPACE,
        metricName: name,
        ...(service !== undefined && { dimensionsMap: { [SERVICE_DIMENSION]: service } }),
        statistic,
        period,
        label,
      });
    this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      dashboardName: `${Stack.of(this).stackName}-${DELIVERY_DASHBOARD_NAME_SUFFIX}`,
      defaultInterval: Duration.hours(3),
      widgets: [
        [
          new cloudwatch.GraphWidget({
            title: 'Deliveries: accepted, resubmitted, rejected, conflicts, unregistered keys',
            width: 12,
            left: [
              metric(DeliveryMetric.DeliveriesAccepted, ServiceName.Ingestion, 'Sum', 'accepted'),
              metric(DeliveryMetric.DeliveriesResubmitted, ServiceName.Ingestion, 'Sum', 'resubmitted'),
              metric(DeliveryMetric.DeliveriesRejected, ServiceName.Ingestion, 'Sum', 'rejected (400)'),
              metric(DeliveryMetric.DeliveryConflicts, ServiceName.Ingestion, 'Sum', 'conflicts (409)'),
              metric(
                DeliveryMetric.UnknownRequesterRequests,
                ServiceName.Ingestion,
                'Sum',
                'unregistered key (403)',
              ),
            ],
          }),
          new cloudwatch.GraphWidget({
            title: 'Outbox: published, publish failures',
            width: 12,
            left: [
              new cloudwatch.MathExpression({
                expression: `SEARCH('{${CHOREOGRAPHY_METRICS_NAMESPACE},${SERVICE_DIMENSION}} MetricName="${DeliveryMetric.OutboxEventsPublished}"', 'Sum', ${props.periodSeconds})`,
                label: 'published',
                period,
              }),
              new cloudwatch.MathExpression({
                expression: `SEARCH('{${CHOREOGRAPHY_METRICS_NAMESPACE},${SERVICE_DIMENSION}} MetricName="${DeliveryMetric.OutboxPublishFailures}"', 'Sum', ${props.periodSeconds})`,
                label: 'publish failures',
                period,
              }),
            ],
          }),
        ],
        [
          new cloudwatch.GraphWidget({
            title: 'Remediation: decisions, give-ups by reason',
            width: 24,
            left: [
              new cloudwatch.MathExpression({
                expression: `SEARCH('{${CHOREOGRAPHY_METRICS_NAMESPACE},${SERVICE_DIMENSION},${DECISION_DIMENSION}} MetricName="${DeliveryMetric.RemediationDecisions}"', 'Sum', ${props.periodSeconds})`,
                label: 'decisions',
                period,
              }),
              new cloudwatch.MathExpression({
                expression: `SEARCH('{${CHOREOGRAPHY_METRICS_NAMESPACE},${SERVICE_DIMENSION},${REASON_CODE_DIMENSION}} MetricName="${DeliveryMetric.RemediationGiveUps}"', 'Sum', ${props.periodSeconds})`,
                label: 'give-ups',
                period,
              }),
            ],
          }),
        ],
        [new cloudwatch.AlarmStatusWidget({ title: 'Alarms', width: 24, alarms: alarms.alarms })],
      ],
    });
  }
}

/**
 * How long a message that keeps failing stays on the queue: VisibilityTimeout × maxReceiveCount of
 * its redrive policy (see oldestMessageAgeAlarm). A queue without a redrive policy, or whose values
 * are not known at synth, has no such window: an error naming it.
 */
function retryWindowSeconds(queue: sqs.CfnQueue): number {
  const visibility = queueVisibilitySeconds(queue);
  const redrive = Stack.of(queue).resolve(queue.redrivePolicy) as { maxReceiveCount?: unknown } | undefined;
  const maxReceiveCount = redrive?.maxReceiveCount;
  if (typeof visibility !== 'number' || typeof maxReceiveCount !== 'number') {
    throw new Error(
      `DeliveryOperations: queue ${queue.node.path} needs a VisibilityTimeout and a redrive policy's maxReceiveCount known at synth, to derive its oldest-message alarm's threshold`,
    );
  }
  return visibility * maxReceiveCount;
}

/** Every FIFO queue of the stack (synthesized resources), sorted by construct path. */
function fifoWorkQueuesOf(scope: Stack): sqs.CfnQueue[] {
  return [...resourcesByLogicalId(scope).values()]
    .filter((node): node is sqs.CfnQueue => node instanceof sqs.CfnQueue && node.fifoQueue === true)
    .sort((a, b) => a.node.path.localeCompare(b.node.path));
}
