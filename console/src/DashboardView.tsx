/**
 * The dashboard at a glance (issue 26, item 4): under the alarm panel (on top of every page, its
 * firing alarms spelled out), orders by state and deliveries by status over the last hour as small
 * multiples: per state or status the orders or deliveries that entered it in each minute (bars on
 * one scale per group), the hour's total and the count now. Drawn as plain React SVG like the other
 * charts (console/README.md says why no library). Each chart is reached with Tab and says its
 * summary on focus or hover, in the line under its group and to screen readers; the table under
 * each group says the same in words (its text equivalent).
 *
 * The metrics are read every DASHBOARD_POLL_MS, not every 2 s like the other views: on AWS
 * GetMetricData is billed per metric asked (13 a read), the bins are minutes, and CloudWatch takes
 * a while to show a minute's data anyway. The counts now are read as often as the Orders tab does.
 */
import { DELIVERY_LIST_MAX } from '../../lambdas/choreography/contracts/operator';
import type { DashboardBody } from '../contract/dashboard';
import { useConsoleApi } from './api';
import { DataTable, ErrorNotice, Freshness, StateBadge } from './common';
import { type CountNow, countText, minuteOf, type SmallMultiples, smallMultiplesOf } from './dashboard-chart';
import { useChartDetail } from './use-chart-detail';
import { usePolling } from './use-polling';

/** How often the dashboard reads the hour's metrics again. */
export const DASHBOARD_POLL_MS = 30_000;

const WIDTH = 240;
const HEIGHT = 64;
const AXIS = 16;

export function DashboardView() {
  const api = useConsoleApi();
  const hour = usePolling(() => api.dashboard(), 'dashboard', { intervalMs: DASHBOARD_POLL_MS });
  const counts = usePolling(() => api.counts(), 'counts');
  const body = hour.data;
  return (
    <>
      <h2 className="view-title">Dashboard</h2>
      <Freshness loadedAt={hour.loadedAt} />
      <ErrorNotice error={hour.error} />
      {body && (
        <>
          <p className="summary" data-testid="dashboard-window">
            The hour from {minuteOf(Date.parse(body.from))} to {minuteOf(Date.parse(body.to))}, on the clock
            the metrics are stamped with; read every {DASHBOARD_POLL_MS / 1000} s.
          </p>
          <Group
            id="orders"
            title="Orders by state, last hour"
            noun="orders"
            from={body.from}
            to={body.to}
            multiples={smallMultiplesOf(body.orders, body.from, (state) =>
              counts.data?.find((entry) => entry.state === state),
            )}
            nowNote="Now: the orders each state holds (the Orders tab's counts)."
            nameColumn="State"
            error={counts.error}
          />
          {api.servesDeliveries && <Deliveries body={body} />}
        </>
      )}
    </>
  );
}

/** The deliveries' group: the count now is the status's list length (at most DELIVERY_LIST_MAX). */
function Deliveries({ body }: { readonly body: DashboardBody }) {
  const api = useConsoleApi();
  const statuses = body.deliveries.map(({ name }) => name);
  const lists = usePolling(
    async () =>
      new Map<string, CountNow>(
        await Promise.all(
          statuses.map(async (status): Promise<[string, CountNow]> => {
            const { items } = await api.deliveries(status);
            return [status, { count: items.length, atLeast: items.length >= DELIVERY_LIST_MAX }];
          }),
        ),
      ),
    `deliveries-now|${statuses.join(',')}`,
    { intervalMs: DASHBOARD_POLL_MS },
  );
  return (
    <Group
      id="deliveries"
      title="Deliveries by status, last hour"
      noun="deliveries"
      from={body.from}
      to={body.to}
      multiples={smallMultiplesOf(body.deliveries, body.from, (status) => lists.data?.get(status))}
      nowNote={`Now: the deliveries each status holds in the read model (its list, counted up to ${DELIVERY_LIST_MAX}).`}
      nameColumn="Status"
      error={lists.error}
    />
  );
}

function Group(props: {
  readonly id: string;
  readonly title: string;
  readonly noun: string;
  /** The hour's start and end (ISO, end excluded). */
  readonly from: string;
  readonly to: string;
  readonly multiples: SmallMultiples;
  readonly nowNote: string;
  /** The table's first column: State or Status. */
  readonly nameColumn: string;
  readonly error: string | undefined;
}) {
  const { detail, show } = useChartDetail();
  const { charts, scaleMax } = props.multiples;
  const titleId = `dashboard-${props.id}-title`;
  return (
    <section
      aria-labelledby={titleId}
      data-testid={`dashboard-${props.id}`}
      data-from={props.from}
      data-to={props.to}
    >
      <h3 id={titleId}>{props.title}</h3>
      <ErrorNotice error={props.error} />
      <ul className="small-multiples">
        {charts.map((chart) => (
          <li key={chart.name} data-series={chart.name} data-total={chart.total}>
            <div className="small-chart-head">
              <StateBadge state={chart.name} />
              <span>
                <span className="count">{chart.total}</span> in the hour · now{' '}
                <span className="count">{countText(chart.now)}</span>
              </span>
            </div>
            <svg
              className="small-chart"
              viewBox={`0 0 ${WIDTH} ${HEIGHT + AXIS}`}
              data-testid="dashboard-chart"
              {...show(chart.summary)}
            >
              <title>{chart.summary}</title>
              <line className="baseline" x1={0} x2={WIDTH} y1={HEIGHT} y2={HEIGHT} />
              {chart.perMinute.map((count, minute) =>
                count === 0 ? null : (
                  <rect
                    // biome-ignore lint/suspicious/noArrayIndexKey: a bar is its minute of the hour
                    key={minute}
                    className="minute-bar"
                    data-minute={minute}
                    data-count={count}
                    x={(minute * WIDTH) / chart.perMinute.length + 0.5}
                    width={WIDTH / chart.perMinute.length - 1}
                    y={HEIGHT - (count / scaleMax) * (HEIGHT - 4)}
                    height={(count / scaleMax) * (HEIGHT - 4)}
                  />
                ),
              )}
              <text x={0} y={HEIGHT + AXIS - 3}>
                {minuteOf(Date.parse(props.from))}
              </text>
              <text x={WIDTH} y={HEIGHT + AXIS - 3} textAnchor="end">
                now
              </text>
            </svg>
          </li>
        ))}
      </ul>
      <p className="chart-detail" aria-live="polite" data-testid={`dashboard-${props.id}-detail`}>
        {detail ?? 'Hover over or focus (Tab) a chart for its summary.'}
      </p>
      <p className="summary">
        Each bar is a minute: the {props.noun} that entered the {props.nameColumn.toLowerCase()} in it, all
        charts on one scale (the tallest bar is {scaleMax} in a minute). {props.nowNote}
      </p>
      <DataTable
        caption={`${props.title}: the charts in words`}
        columns={[props.nameColumn, 'Now', 'Entered in the hour', 'Busiest minute']}
      >
        {charts.map((chart) => (
          <tr key={chart.name} data-series={chart.name}>
            <th scope="row">
              <StateBadge state={chart.name} />
            </th>
            <td data-cell="now">{countText(chart.now)}</td>
            <td data-cell="total">{chart.total}</td>
            <td data-cell="busiest">
              {chart.busiest ? `${chart.busiest.count} at ${minuteOf(chart.busiest.at)}` : '—'}
            </td>
          </tr>
        ))}
      </DataTable>
    </section>
  );
}
