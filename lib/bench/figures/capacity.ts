/**
 * Figure "capacity" (issue 24, part 5): for each AWS quota that applies to orders and to
 * deliveries, the rate at which it binds, first to bind first, and what raises it. The model
 * (lib/bench/core/capacity-model.ts) reads the default profile's templates, synthesized here in
 * process, and what one Processed order and one Delivered delivery used as order-cost and
 * delivery-cost metered them in this run (Figure.needs): never constants, so a change of the
 * workflow's shape moves the figure. The quotas are the dated table in lib/bench/quotas.
 */
import { type Binding, bindingRates } from '../core/capacity-model';
import { templateFacts } from '../core/capacity-template';
import { synthesizeDefaultTemplates, type TemplateResources } from '../core/default-templates';
import type { ChartSpec, Figure, FigureId, FigureResult, Measurement, MeteredBatch } from '../core/figure';
import { round } from '../core/unit-cost';
import { QUOTAS_READ_ON, type QuotaTable, US_EAST_1_QUOTAS } from '../quotas/us-east-1';

const QUOTAS: QuotaTable = US_EAST_1_QUOTAS;

/** The apps the model covers: where their batch comes from, and their template. */
const APPS = [
  { noun: 'orders', figure: 'order-cost', batch: 'processed', template: 'orders' },
  { noun: 'deliveries', figure: 'delivery-cost', batch: 'delivered', template: 'deliveries' },
] as const satisfies readonly { noun: string; figure: FigureId; batch: string; template: string }[];

/** A batch a cost figure handed over, or an error naming what is missing. */
function batchOf(earlier: ReadonlyMap<FigureId, FigureResult>, figure: FigureId, name: string): MeteredBatch {
  const batch = earlier.get(figure)?.batches?.[name];
  if (!batch) throw new Error(`${figure} handed over no '${name}' batch`);
  return batch;
}

/** A binding's key in results.json: the app, the quota (or setting of ours) and what it applies to. */
const keyOf = (noun: string, entry: Binding) => `${noun}.${entry.quota}.${entry.resource}`;

function appMeasurements(noun: string, bindings: readonly Binding[]): Measurement[] {
  const first = bindings[0];
  return [
    ...(first
      ? [
          {
            key: `${noun}.first.bindsAt`,
            label: `${noun}: the first to bind binds at (${first.name}; ${first.kind === 'ours' ? 'a setting of ours' : 'an AWS quota'})`,
            value: round(first.bindsAt, 1),
            unit: `${noun}/s`,
          },
        ]
      : []),
    ...bindings.flatMap((entry) => [
      {
        key: `${keyOf(noun, entry)}.bindsAt`,
        label: `${noun}: ${entry.name} binds at`,
        value: round(entry.bindsAt, 1),
        unit: `${noun}/s`,
      },
      {
        key: `${keyOf(noun, entry)}.perUnit`,
        label: `${noun}: ${entry.name}, used per request (of ${round(entry.limit, 1)})`,
        value: round(entry.perUnit, 4),
        unit: 'per request',
      },
    ]),
  ];
}

function describe(
  models: readonly { noun: string; units: number; bindings: Binding[] }[],
  quick: boolean,
): FigureResult {
  const chart: ChartSpec = {
    kind: 'bar',
    title: 'Rate at which each quota binds (default profile, us-east-1), first to bind on the left',
    xLabel: 'quota',
    yLabel: 'requests per second (log)',
    logScale: true,
    points: models.flatMap(({ noun, bindings }) =>
      bindings.map((entry) => ({
        series: noun,
        x: `${noun}: ${entry.name.slice(0, 60)}`,
        y: round(entry.bindsAt, 1),
      })),
    ),
  };
  const unconfirmed = Object.entries(QUOTAS)
    .filter(([, quota]) => 'unconfirmed' in quota)
    .map(([key]) => key);
  const notes = [
    `Model: a quota of L per second that one request uses u times binds at L / u requests per second; one spread over n partitions (shards, counters) at n x L / u. The uses per request are the batches order-cost (${models[0]?.units} Processed orders) and delivery-cost (${models[1]?.units} Delivered deliveries) metered in this run; the settings (FIFO and high throughput, fixed message groups, event source batch sizes and maximum concurrency, reserved concurrency, index keys and shard counts, admission shards, stage and usage plan throttles) are read from the default profile's templates synthesized in process with real downstream endpoints (lib/bench/core/default-templates.ts). Quotas: lib/bench/quotas/us-east-1.ts, read on ${QUOTAS_READ_ON} where confirmed; not confirmed on an AWS page: ${unconfirmed.join(', ')}.`,
    ...models.map(({ noun, bindings }) => {
      const listed = bindings
        .map((entry) => `${entry.name}: ${round(entry.bindsAt, 1)}/s (raised by ${entry.raisedBy})`)
        .join('; ');
      return `${noun}, every quota that applies, first to bind first: ${listed}.`;
    }),
    'Account quotas (Step Functions, Lambda concurrency, API Gateway, EventBridge) are shared: each app is modelled alone; both at once bind where orders/R(orders) + deliveries/R(deliveries) reaches 1.',
    "What the model ignores: bursts (token buckets let a burst above the rate through: StartExecution 1,300, API Gateway 5,000, the stages' burst limits); retries and faults (a recovered order costs more: order-cost's recovered batch); the local runtime's durations stand for AWS's in the Lambda rows (concurrency = rate x billed seconds per request; init and the local machine's load included) and in the fixed message group's row; PutEvents entries counted as requests (the relays may batch up to 10); index write units are the meter's, each index's share as DynamoDB Local reports it (where a run has none, a bound from above: each write taken to move its index entry, of at most 1 KB unless projected ALL), and an index key's busiest value is taken to get every write of the index (a key of few values); DynamoDB tables' and indexes' own scaling (on-demand tables double their previous peak: a sudden step can throttle below these rates); the admission limit of orders in flight (a setting of ours: at most limit / time in the system orders per second); stream-reading functions' concurrency (one per stream shard); message groups set per order or per delivery by the senders (they never carry more than one request's messages); SQS standard queues and standard topics (nearly unlimited); the fake downstream services and drone fleet; KMS, CloudWatch Logs and X-Ray request quotas.",
    ...(quick
      ? [
          'Quick run: the uses per request come from one order and one delivery on cold sandboxes (durations inflated by init): the Lambda rows are pessimistic.',
        ]
      : []),
  ];
  return {
    id: 'capacity',
    title: capacityFigure.title,
    measurements: models.flatMap(({ noun, bindings }) => appMeasurements(noun, bindings)),
    targets: [],
    notes,
    charts: [chart],
  };
}

const run: Figure['run'] = async (context) => {
  context.progress("synthesizing the default profile's templates (in process, no bundling)");
  const templates: Readonly<Record<string, TemplateResources>> = { ...synthesizeDefaultTemplates() };
  const models = APPS.map(({ noun, figure, batch, template }) => {
    const measured = batchOf(context.earlier, figure, batch);
    const resources = templates[template];
    if (!resources) throw new Error(`no ${template} template`);
    const bindings = bindingRates(
      { facts: templateFacts(resources), units: measured.units, work: measured.work },
      QUOTAS,
    );
    context.progress(
      `${noun}: ${bindings.length} quotas apply; the first binds at ${round(bindings[0]?.bindsAt ?? 0, 1)}/s`,
    );
    return { noun, units: measured.units, bindings };
  });
  return describe(models, context.quick);
};

export const capacityFigure: Figure = {
  id: 'capacity',
  title: 'Capacity: where each AWS quota binds',
  needs: APPS.map((app) => app.figure),
  run,
};
