import { Duration, Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { Construct } from 'constructs';
import {
  DEAD_LETTER_QUEUE_ALARM,
  METRICS_NAMESPACE,
  OrderMetric,
  RoleServiceName,
  resolveOrderAlarms,
  type WorkflowTimings,
} from '../../lambdas/scheduler-agent-supervisor/contracts';
import { SERVICE_DIMENSION } from '../../lambdas/shared/alarm-spec';
import { OperatorAlarms } from '../platform/alarms';
import type { OperatorAlerts } from '../platform/operator-alerts';

export interface OrderOperationsProps {
  /** The operator alerts: every alarm notifies their topic. */
  readonly alerts: OperatorAlerts;
  /** The deployment's workflow timings (step timeouts, heartbeats, supervisor rate), from its profile. */
  readonly timings: WorkflowTimings;
  /** Steps of the longest workflow in service (the oldest-in-flight threshold grows with it). */
  readonly stepCount: number;
  /** Alarm and graph period, seconds (PlatformSettings.alarmPeriodSeconds). */
  readonly periodSeconds: number;
}

/** The dashboard's name after `<stack>-`. */
export const DASHBOARD_NAME_SUFFIX = 'OrderFlow';

/**
 * Operational visibility of the wing (README, Operations): every alarm of the metric contract
 * (ORDER_ALARMS), one per dead-letter queue, all notifying the operator topic, and one dashboard
 * of the order flow with every alarm's status. Create it after every other construct of the
 * stack: the dead-letter queues are found among them.
 */
export class OrderOperations extends Construct {
  readonly alarms: OperatorAlarms;
  readonly dashboard: cloudwatch.Dashboard;

  constructor(scope: Construct, id: string, props: OrderOperationsProps) {
    super(scope, id);
    props.alerts.allowCloudWatchAlarms();
    this.alarms = new OperatorAlarms(this, 'Alarms', {
      topic: props.alerts.topic,
      namespace: METRICS_NAMESPACE,
      periodSeconds: props.periodSeconds,
    });
    for (const alarm of resolveOrderAlarms({
      timings: props.timings,
      stepCount: props.stepCount,
      periodSeconds: props.periodSeconds,
    })) {
      this.alarms.addMetricAlarm(alarm);
    }
    this.alarms.alarmDeadLetterQueues(DEAD_LETTER_QUEUE_ALARM);

    const period = Duration.seconds(props.periodSeconds);
    const metric = (
      name: OrderMetric,
      service: (typeof RoleServiceName)[keyof typeof RoleServiceName],
      statistic: string,
      label?: string,
    ) =>
      new cloudwatch.Metric({
        namespace: METRICS_NAMESPACE,
        metricName: name,
        dimensionsMap: { [SERVICE_DIMENSION]: service },
        statistic,
        period,
        ...(label !== undefined && { label }),
      });
    const { Submission, StatusNotifier, AdmissionReconciler, Supervisor } = RoleServiceName;

    this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      dashboardName: `${Stack.of(this).stackName}-${DASHBOARD_NAME_SUFFIX}`,
      defaultInterval: Duration.hours(3),
      widgets: [
        [
          new cloudwatch.GraphWidget({
            title: 'Orders: submitted, processed, failed, compensated',
            width: 12,
            left: [
              metric(OrderMetric.OrdersAccepted, Submission, 'Sum', 'submitted'),
              metric(OrderMetric.OrdersProcessed, StatusNotifier, 'Sum', 'processed'),
              metric(OrderMetric.OrdersFailed, StatusNotifier, 'Sum', 'failed (Error)'),
              metric(OrderMetric.OrdersCompensated, StatusNotifier, 'Sum', 'compensated'),
              metric(OrderMetric.CompensationsFailed, StatusNotifier, 'Sum', 'compensation failed'),
            ],
          }),
          new cloudwatch.GraphWidget({
            title: 'In flight',
            width: 12,
            left: [metric(OrderMetric.OrdersInFlight, AdmissionReconciler, 'Maximum', 'orders in flight')],
            right: [
              metric(OrderMetric.OldestInFlightAgeSeconds, Supervisor, 'Maximum', 'oldest in flight (s)'),
            ],
          }),
        ],
        [
          new cloudwatch.GraphWidget({
            title: 'Recovery time of orders that needed a retry (s)',
            width: 12,
            left: [
              metric(OrderMetric.RecoveryTimeSeconds, StatusNotifier, 'Average', 'average'),
              metric(OrderMetric.RecoveryTimeSeconds, StatusNotifier, 'Maximum', 'maximum'),
            ],
          }),
          new cloudwatch.GraphWidget({
            title: 'Needs an operator',
            width: 12,
            left: [
              metric(OrderMetric.OrdersInError, Supervisor, 'Maximum', 'orders in Error'),
              metric(OrderMetric.CompensationsStuck, Supervisor, 'Maximum', 'compensations stuck'),
              metric(OrderMetric.AdmissionRejected, Submission, 'Sum', 'admission rejections (429)'),
              metric(OrderMetric.SubmissionConflicts, Submission, 'Sum', 'conflicts (409)'),
              // Counted by submit-order and get-order alike (lambdas/shared/registered-caller.ts).
              new cloudwatch.MathExpression({
                expression: `SEARCH('{${METRICS_NAMESPACE},${SERVICE_DIMENSION}} MetricName="${OrderMetric.UnknownClientRequests}"', 'Sum', ${props.periodSeconds})`,
                label: 'unregistered key (403)',
                period,
              }),
            ],
          }),
        ],
        [
          new cloudwatch.AlarmStatusWidget({
            title: 'Alarms',
            width: 24,
            alarms: this.alarms.alarms,
          }),
        ],
      ],
    });
  }
}
