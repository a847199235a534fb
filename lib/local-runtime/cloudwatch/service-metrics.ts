/**
 * The metrics AWS services publish to CloudWatch on their own, as the runtime's services see the
 * facts they are made of: one home for their namespaces, names, dimensions and units, so that an
 * alarm of a template on one of them evaluates locally as on AWS. The CloudWatch provisioner
 * (../provisioners/cloudwatch.ts) calls these as the facts happen, at the runtime clock's time.
 *
 * - AWS/SQS, sampled: https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-available-cloudwatch-metrics.html
 * - AWS/Lambda, per invocation and per stream batch: https://docs.aws.amazon.com/lambda/latest/dg/monitoring-metrics-types.html
 * - AWS/ApiGateway, per answer of a stage: https://docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-metrics-and-dimensions.html
 */
import type { ApiResponseFigures } from '../apigateway/rest-apis';
import type { QueueFigures } from '../sqs/queue-store';
import type { Aggregate, MetricIdentity, MetricStore } from './metrics';

const SQS = 'AWS/SQS';
const LAMBDA = 'AWS/Lambda';
const API_GATEWAY = 'AWS/ApiGateway';

/**
 * The AWS metrics the runtime produces, by namespace (what records them below may name no other);
 * an alarm on any other AWS/ metric sees no data.
 */
const PRODUCED_AWS_METRICS = {
  [SQS]: ['ApproximateNumberOfMessagesVisible', 'ApproximateAgeOfOldestMessage'],
  [LAMBDA]: ['Invocations', 'Errors', 'Duration', 'IteratorAge'],
  [API_GATEWAY]: ['Count', '4XXError', '5XXError', 'Latency', 'IntegrationLatency'],
} as const;
type ProducedNamespace = keyof typeof PRODUCED_AWS_METRICS;
type ProducedMetric<Namespace extends ProducedNamespace> = (typeof PRODUCED_AWS_METRICS)[Namespace][number];

/** Whether the runtime produces this AWS metric (a namespace not under AWS/ is anyone's: true). */
export function isProducedLocally(namespace: string, metricName: string): boolean {
  if (!namespace.startsWith('AWS/')) return true;
  const produced: readonly string[] | undefined = PRODUCED_AWS_METRICS[namespace as ProducedNamespace];
  return produced?.includes(metricName) ?? false;
}

const one = (value: number): Aggregate => ({ sum: value, count: 1, min: value, max: value });

/** Records one value of a metric under each of its dimension sets. */
function recordEach<Namespace extends ProducedNamespace>(
  store: MetricStore,
  at: number,
  namespace: Namespace,
  dimensionSets: ReadonlyArray<Readonly<Record<string, string>>>,
  values: ReadonlyArray<readonly [metricName: ProducedMetric<Namespace>, unit: string, value: number]>,
): void {
  for (const dimensions of dimensionSets) {
    for (const [metricName, unit, value] of values) {
      const metric: MetricIdentity = { namespace, metricName, dimensions };
      store.record(metric, unit, at, one(value));
    }
  }
}

/** Lambda's metrics of one function, per function (FunctionName) and across functions, as Lambda sends them. */
function recordForFunction(
  store: MetricStore,
  at: number,
  functionName: string,
  values: ReadonlyArray<readonly [metricName: ProducedMetric<typeof LAMBDA>, unit: string, value: number]>,
): void {
  recordEach(store, at, LAMBDA, [{ FunctionName: functionName }, {}], values);
}

/** ApproximateNumberOfMessagesVisible and ApproximateAgeOfOldestMessage of a queue (QueueName). */
export function recordQueueFigures(store: MetricStore, at: number, figures: QueueFigures): void {
  recordEach(
    store,
    at,
    SQS,
    [{ QueueName: figures.queueName }],
    [
      ['ApproximateNumberOfMessagesVisible', 'Count', figures.visibleMessages],
      ['ApproximateAgeOfOldestMessage', 'Seconds', figures.oldestMessageAgeSeconds],
    ],
  );
}

/**
 * At an invocation's end: Invocations, Errors (0 or 1) and Duration, per function (FunctionName) and
 * across functions (no dimension), as Lambda sends them.
 */
export function recordInvocation(
  store: MetricStore,
  at: number,
  functionName: string,
  ok: boolean,
  durationMillis: number,
): void {
  recordForFunction(store, at, functionName, [
    ['Invocations', 'Count', 1],
    ['Errors', 'Count', ok ? 0 : 1],
    ['Duration', 'Milliseconds', durationMillis],
  ]);
}

/**
 * As a stream event source mapping sends a batch: IteratorAge, the age of the batch's last record
 * (ms), per function and across functions. Lambda publishes it for every batch it invokes the
 * function with, retries of a failing batch included: a consumer stuck on a batch shows it ageing.
 */
export function recordIteratorAge(
  store: MetricStore,
  at: number,
  functionName: string,
  iteratorAgeMillis: number,
): void {
  recordForFunction(store, at, functionName, [['IteratorAge', 'Milliseconds', iteratorAgeMillis]]);
}

/**
 * As an API's stage answers a request: Count (1), 4XXError and 5XXError (1 for an answer of that
 * class, else 0: Sum counts them, Average is the rate), Latency and, when the Lambda integration was
 * called, IntegrationLatency (ms); per API (ApiName) and per stage (ApiName, Stage), API Gateway's
 * default metrics (no per-method ones: those are detailed metrics, off unless a stage enables them).
 */
export function recordApiResponse(
  store: MetricStore,
  at: number,
  apiName: string,
  figures: ApiResponseFigures,
): void {
  const values: Array<readonly [ProducedMetric<typeof API_GATEWAY>, string, number]> = [
    ['Count', 'Count', 1],
    ['4XXError', 'Count', figures.status >= 400 && figures.status < 500 ? 1 : 0],
    ['5XXError', 'Count', figures.status >= 500 ? 1 : 0],
    ['Latency', 'Milliseconds', figures.latencyMillis],
  ];
  if (figures.integrationLatencyMillis !== undefined) {
    values.push(['IntegrationLatency', 'Milliseconds', figures.integrationLatencyMillis]);
  }
  recordEach(
    store,
    at,
    API_GATEWAY,
    [{ ApiName: apiName }, { ApiName: apiName, Stage: figures.stage }],
    values,
  );
}
