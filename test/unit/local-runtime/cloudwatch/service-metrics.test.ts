/**
 * The AWS metrics the runtime publishes for its services (service-metrics.ts): which ones an alarm
 * can see locally, and API Gateway's per answer, under both of its dimension sets.
 */
import { MetricStore } from '../../../../lib/local-runtime/cloudwatch/metrics';
import {
  isProducedLocally,
  recordApiResponse,
  recordIteratorAge,
} from '../../../../lib/local-runtime/cloudwatch/service-metrics';

describe('service metrics', () => {
  it('knows which AWS metrics it produces, metric by metric, and leaves other namespaces to their emitters', () => {
    expect(isProducedLocally('AWS/Lambda', 'IteratorAge')).toBe(true);
    expect(isProducedLocally('AWS/ApiGateway', '5XXError')).toBe(true);
    expect(isProducedLocally('AWS/SQS', 'ApproximateAgeOfOldestMessage')).toBe(true);
    expect(isProducedLocally('AWS/Lambda', 'Throttles')).toBe(false);
    expect(isProducedLocally('AWS/DynamoDB', 'ThrottledRequests')).toBe(false);
    expect(isProducedLocally('DroneDelivery', 'Anything')).toBe(true);
  });

  it('counts each answer of a stage per API and per API and stage, an error class as 1 or 0', () => {
    const store = new MetricStore({ clock: () => 10_000 });
    recordApiResponse(store, 10_000, 'orders', { stage: 'prod', status: 502, latencyMillis: 7 });
    recordApiResponse(store, 10_000, 'orders', {
      stage: 'prod',
      status: 200,
      latencyMillis: 3,
      integrationLatencyMillis: 2,
    });
    const sum = (metricName: string, dimensions: Record<string, string>) =>
      store
        .aggregates(
          { namespace: 'AWS/ApiGateway', metricName, dimensions },
          { start: 0, end: 60_000, periodSeconds: 60 },
        )
        .map(({ aggregate }) => [aggregate.sum, aggregate.count]);
    const perApi: Record<string, string> = { ApiName: 'orders' };
    for (const dimensions of [perApi, { ...perApi, Stage: 'prod' }]) {
      expect(sum('Count', dimensions)).toEqual([[2, 2]]);
      expect(sum('5XXError', dimensions)).toEqual([[1, 2]]);
      expect(sum('4XXError', dimensions)).toEqual([[0, 2]]);
      expect(sum('Latency', dimensions)).toEqual([[10, 2]]);
      expect(sum('IntegrationLatency', dimensions)).toEqual([[2, 1]]);
    }
  });

  it("records a stream batch's iterator age per function and across functions, in milliseconds", () => {
    const store = new MetricStore({ clock: () => 10_000 });
    recordIteratorAge(store, 10_000, 'relay', 61_000);
    const perFunction: Record<string, string> = { FunctionName: 'relay' };
    for (const dimensions of [perFunction, {}]) {
      const [period] = store.aggregates(
        { namespace: 'AWS/Lambda', metricName: 'IteratorAge', dimensions },
        { start: 0, end: 60_000, periodSeconds: 60 },
      );
      expect(period).toMatchObject({ aggregate: { max: 61_000, count: 1 }, unit: 'Milliseconds' });
    }
  });
});
