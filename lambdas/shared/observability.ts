/**
 * Logs, metrics and traces of every handler, built once per handler module (at load, so they live
 * as long as the execution environment, as in Powertools' own examples) and configured only by the
 * environment the platform's function construct sets (lib/platform/lambda-function.ts).
 *
 * Tracing follows Powertools' rules: it is on in a Lambda execution environment (AWS_EXECUTION_ENV
 * set, as on AWS and in the local runtime) unless POWERTOOLS_TRACE_ENABLED=false (the local
 * profile's functions: the local runtime has no X-Ray), and off elsewhere (tests that import
 * handlers directly). Where it is off, the X-Ray SDK is not even loaded (./tracing) and every
 * helper here runs the work untraced, touching no X-Ray API, so nothing logs "context missing".
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { MetricResolution, Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { Context } from 'aws-lambda';
import { PowertoolsEnvKey, requireEnv } from './env';
import { createTracer, type HandlerTracer } from './tracing';

/** @typeParam Name the metric names the module may count (its wing's contract); none by default. */
export interface Observability<Name extends string = never> {
  readonly logger: Logger;
  readonly metrics: Metrics;
  /** Powertools' Tracer where tracing is on, an untraced stand-in where it is off (./tracing). */
  readonly tracer: HandlerTracer;
  /** Counts one of the module's metrics (see metricCounter). */
  readonly count: MetricCounter<Name>;
  /** Counts one of the module's metrics under a dimension of its own (see dimensionedCounter). */
  readonly countBy: DimensionedCounter<Name>;
  /** Records a measured value of one of the module's metrics, zero included (see metricGauge). */
  readonly gauge: MetricGauge<Name>;
}

export interface ObservabilityOptions {
  /** Keys on every log line of the module (e.g. the step an agent serves). */
  readonly persistentLogKeys?: Readonly<Record<string, string>>;
  /** Dimensions of every metric of the module, besides the service. */
  readonly defaultDimensions?: Readonly<Record<string, string>>;
}

/**
 * Logger, Metrics and Tracer of one handler module, and a counter of the metric names it may emit
 * (`createObservability<OrderMetric>()`): the names come from the wing's contract, never from a
 * literal in a handler. The service name and the metrics namespace are required rather than
 * defaulted: the function construct always sets both, so a missing one means the code runs
 * somewhere it was not deployed to, and metrics in a made-up namespace would be lost to the alarms
 * that read the real one.
 */
export function createObservability<Name extends string = never>(
  options: ObservabilityOptions = {},
  env: NodeJS.ProcessEnv = process.env,
): Observability<Name> {
  const serviceName = requireEnv(PowertoolsEnvKey.ServiceName, env);
  const namespace = requireEnv(PowertoolsEnvKey.MetricsNamespace, env);
  const metrics = new Metrics({
    serviceName,
    namespace,
    defaultDimensions: { ...options.defaultDimensions },
  });
  return {
    logger: new Logger({ serviceName, persistentKeys: { ...options.persistentLogKeys } }),
    metrics,
    tracer: createTracer(serviceName, env),
    count: metricCounter<Name>(metrics),
    countBy: dimensionedCounter<Name>(metrics),
    gauge: metricGauge<Name>(metrics),
  };
}

/**
 * Every metric is written at high (1 s) storage resolution: the local profile's alarms evaluate
 * 10-second periods, which CloudWatch allows only on high-resolution metrics. It costs nothing
 * more on AWS (a custom metric is priced per metric, whatever its resolution; only alarms with a
 * period under 60 s are priced higher, and the default profile's alarms use 60 s).
 */
const RESOLUTION = MetricResolution.High;

/** Counts one of a closed set of metric names (a wing passes its contract's names as `Name`). */
export type MetricCounter<Name extends string> = (name: Name, value?: number) => void;

/** A counter on `metrics` that writes nothing for a zero, so an idle invocation emits no empty metric. */
export function metricCounter<Name extends string>(metrics: Metrics): MetricCounter<Name> {
  return (name, value = 1) => {
    if (value > 0) {
      metrics.addMetric(name, MetricUnit.Count, value, RESOLUTION);
    }
  };
}

/** Records a measurement (a gauge) of one of a closed set of metric names. */
export type MetricGauge<Name extends string> = (
  name: Name,
  value: number,
  unit?: typeof MetricUnit.Count | typeof MetricUnit.Seconds,
) => void;

/**
 * A gauge on `metrics`: unlike a counter it writes zero too, since "nothing in Error" is a
 * measurement an alarm must see to return to OK, while a counter's missing data already means none.
 */
export function metricGauge<Name extends string>(metrics: Metrics): MetricGauge<Name> {
  return (name, value, unit = MetricUnit.Count) => {
    if (!Number.isFinite(value) || value < 0) {
      throw new Error(`Gauge ${name} must be a finite value >= 0, got ${value}`);
    }
    metrics.addMetric(name, unit, value, RESOLUTION);
  };
}

/** Counts one of a closed set of metric names under one extra dimension (e.g. a reason code). */
export type DimensionedCounter<Name extends string> = (
  name: Name,
  dimension: { readonly name: string; readonly value: string },
  value?: number,
) => void;

/**
 * A counter that writes each count as a metric of its own (Powertools' singleMetric): the extra
 * dimension must not attach to the invocation's other metrics.
 */
export function dimensionedCounter<Name extends string>(metrics: Metrics): DimensionedCounter<Name> {
  return (name, dimension, value = 1) => {
    if (value <= 0) return;
    const single = metrics.singleMetric();
    single.addDimension(dimension.name, dimension.value);
    single.addMetric(name, MetricUnit.Count, value, RESOLUTION);
  };
}

/** Flushes what the invocation counted; nothing is written when nothing was counted. */
export function publishMetrics(metrics: Metrics): void {
  if (metrics.hasStoredMetrics()) {
    metrics.publishStoredMetrics();
  }
}

/** X-Ray annotations: indexed, so traces can be searched by them. Undefined values are left out. */
export type TraceAnnotations = Readonly<Record<string, string | number | boolean | undefined>>;

/**
 * A Lambda handler instrumented the way Powertools' captureLambdaHandler and logMetrics middlewares
 * do it, without middy: the invocation runs in its own `## <handler>` subsegment annotated with
 * ColdStart and Service, an error is recorded on that subsegment before it propagates, and the
 * metrics the invocation counted are flushed however it ends. Responses are not recorded: they can
 * carry order data, which X-Ray would keep outside the stores' encryption and retention.
 */
export function instrumentedHandler<E, R>(
  observability: Pick<Observability<string>, 'metrics' | 'tracer'>,
  handler: (event: E, context: Context) => Promise<R>,
): (event: E, context: Context) => Promise<R> {
  const { metrics, tracer } = observability;
  return async (event, context) => {
    try {
      return await inSubsegment(tracer, `## ${process.env._HANDLER ?? 'handler'}`, () => {
        tracer.annotateColdStart();
        tracer.addServiceNameAnnotation();
        return handler(event, context);
      });
    } finally {
      publishMetrics(metrics);
    }
  };
}

/**
 * One unit of work within an invocation (one SQS record, say) in its own `### <name>` subsegment,
 * annotated so its trace can be found by order or correlation id. Each runs in its own X-Ray
 * context, so records processed concurrently do not attach their SDK calls to each other.
 */
export function traced<T>(
  tracer: HandlerTracer,
  name: string,
  annotations: TraceAnnotations,
  work: () => Promise<T>,
): Promise<T> {
  return inSubsegment(tracer, `### ${name}`, () => {
    annotateTrace(tracer, annotations);
    return work();
  });
}

/** Annotates the current subsegment, e.g. with an order id learnt once the input is parsed. */
export function annotateTrace(tracer: HandlerTracer, annotations: TraceAnnotations): void {
  for (const [key, value] of Object.entries(annotations)) {
    if (value !== undefined) {
      tracer.putAnnotation(key, value);
    }
  }
}

async function inSubsegment<T>(tracer: HandlerTracer, name: string, work: () => Promise<T>): Promise<T> {
  if (!tracer.isTracingEnabled()) {
    return work();
  }
  // captureAsyncFunc runs `work` in a context of its own where the new subsegment is current:
  // Tracer.setSegment would instead swap the one shared slot under concurrent records.
  return tracer.provider.captureAsyncFunc(name, async (subsegment) => {
    try {
      return await work();
    } catch (error) {
      if (error instanceof Error) {
        tracer.addErrorAsMetadata(error);
      }
      throw error;
    } finally {
      subsegment?.close();
    }
  }) as Promise<T>;
}
