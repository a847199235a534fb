import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { PowertoolsEnvKey } from './env';

/** Used when the function construct did not set POWERTOOLS_METRICS_NAMESPACE. */
export const DEFAULT_METRICS_NAMESPACE = 'OrderProcessing';

export function createLogger(defaultServiceName: string): Logger {
  return new Logger({ serviceName: process.env[PowertoolsEnvKey.ServiceName] || defaultServiceName });
}

export function createMetrics(defaultServiceName: string): Metrics {
  return new Metrics({
    namespace: process.env[PowertoolsEnvKey.MetricsNamespace] || DEFAULT_METRICS_NAMESPACE,
    serviceName: process.env[PowertoolsEnvKey.ServiceName] || defaultServiceName,
  });
}

export function countMetric(metrics: Metrics, name: string, value = 1): void {
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
