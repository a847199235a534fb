import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { EnvKey } from '../contracts';

/** Custom metric names of the order handlers (alarms and the dashboard refer to these). */
export const OrderMetric = {
  OrdersAccepted: 'OrdersAccepted',
  OrdersResubmitted: 'OrdersResubmitted',
  SubmissionConflicts: 'SubmissionConflicts',
  SubmissionRejected: 'SubmissionRejected',
  StartMessageSendFailures: 'StartMessageSendFailures',
  ClaimsWon: 'ClaimsWon',
  ClaimsLost: 'ClaimsLost',
  StartsResumed: 'StartsResumed',
  StartsSkipped: 'StartsSkipped',
  SupervisorResets: 'SupervisorResets',
  SupervisorFailures: 'SupervisorFailures',
  SupervisorRestarts: 'SupervisorRestarts',
  SupervisorLostRaces: 'SupervisorLostRaces',
  SupervisorRecordsExamined: 'SupervisorRecordsExamined',
  SupervisorSweeps: 'SupervisorSweeps',
  SupervisorBudgetExhausted: 'SupervisorBudgetExhausted',
  SupervisorErrors: 'SupervisorErrors',
  AlertPublishFailures: 'AlertPublishFailures',
} as const;
export type OrderMetric = (typeof OrderMetric)[keyof typeof OrderMetric];

/** Used when the function construct did not set POWERTOOLS_METRICS_NAMESPACE. */
export const DEFAULT_METRICS_NAMESPACE = 'OrderProcessing';

export function createLogger(defaultServiceName: string): Logger {
  return new Logger({ serviceName: process.env[EnvKey.PowertoolsServiceName] || defaultServiceName });
}

export function createMetrics(defaultServiceName: string): Metrics {
  return new Metrics({
    namespace: process.env[EnvKey.PowertoolsMetricsNamespace] || DEFAULT_METRICS_NAMESPACE,
    serviceName: process.env[EnvKey.PowertoolsServiceName] || defaultServiceName,
  });
}

export function countMetric(metrics: Metrics, name: OrderMetric, value = 1): void {
  if (value > 0) {
    metrics.addMetric(name, MetricUnit.Count, value);
  }
}

/** Flushes what the invocation counted; nothing is written when nothing was counted. */
export function publishMetrics(metrics: Metrics): void {
  if (metrics.hasStoredMetrics()) {
    metrics.publishStoredMetrics();
  }
}
