/**
 * The order's timeline as a chart (issue 26, item 1): one lane per attempt and one for the
 * compensation, each call a bar coloured by how it ended, the supervisor's resets, the operators'
 * actions and the alerts as marks on the time axis. Drawn as plain React SVG: of the libraries
 * measured (console/README.md), vega needs `Function` (the page's CSP forbids eval), recharts
 * costs about 98 kB gzipped, and what this chart needs of one (a time scale and its ticks, with long
 * idle gaps cut: time-axis.ts) none offers as such. Every bar and mark is focusable and says its detail (hover, focus, screen
 * readers); the timeline list below stays the text equivalent.
 */
import type { OperatorOrderDetailBody } from '../../lambdas/scheduler-agent-supervisor/contracts/api';
import { ChartAxis } from './ChartAxis';
import { ChartFrame } from './ChartFrame';
import { LaneHeader } from './LaneHeader';
import { type BarOutcome, type ChartMark, orderChartOf } from './order-chart';
import { timeAxisOf } from './time-axis';
import { useChartDetail } from './use-chart-detail';

const WIDTH = 960;
const LABEL_WIDTH = 170;
const RIGHT = 16;
const MARK_ROW = 22;
const LANE_HEIGHT = 30;
const AXIS_HEIGHT = 30;
const PLOT_WIDTH = WIDTH - LABEL_WIDTH - RIGHT;

const OUTCOMES: readonly { readonly outcome: BarOutcome; readonly label: string }[] = [
  { outcome: 'completed', label: 'completed' },
  { outcome: 'failed', label: 'failed' },
  { outcome: 'timed-out', label: 'timed out' },
  { outcome: 'compensated', label: 'compensated' },
  { outcome: 'started', label: 'not ended' },
];

function MarkShape({ mark, x }: { readonly mark: ChartMark; readonly x: number }) {
  const y = MARK_ROW / 2;
  if (mark.kind === 'alert') return <circle cx={x} cy={y} r={6} />;
  if (mark.kind === 'operator')
    return <polygon points={`${x - 6},${y - 6} ${x + 6},${y - 6} ${x},${y + 6}`} />;
  return <polygon points={`${x},${y - 7} ${x + 7},${y} ${x},${y + 7} ${x - 7},${y}`} />;
}

/** What each colour and mark means. */
function ChartLegend() {
  return (
    <ul className="chart-legend">
      {OUTCOMES.map(({ outcome, label }) => (
        <li key={outcome}>
          <svg viewBox="0 0 14 14" aria-hidden="true" className="swatch">
            <rect className={`bar bar-${outcome}`} width={14} height={14} />
          </svg>{' '}
          {label}
        </li>
      ))}
      <li>
        <span className="key-reset">◆</span> supervisor reset
      </li>
      <li>
        <span className="key-operator">▼</span> operator action
      </li>
      <li>
        <span className="key-alert">●</span> alert
      </li>
    </ul>
  );
}

export function OrderChart({ order }: { readonly order: OperatorOrderDetailBody }) {
  const chart = orderChartOf(order);
  const { detail, show } = useChartDetail();
  const axis = timeAxisOf(chart.spans, PLOT_WIDTH);
  const x = (at: number) => LABEL_WIDTH + axis.x(at);
  const lanesBottom = MARK_ROW + chart.lanes.length * LANE_HEIGHT;
  const height = lanesBottom + AXIS_HEIGHT;
  return (
    <ChartFrame
      className="order-chart"
      titleId="order-chart-title"
      title={`Attempts of order ${order.orderId} on a time axis: ${chart.lanes.length} lanes, ${chart.marks.length} marks`}
      width={WIDTH}
      height={height}
      detail={detail}
      detailTestId="chart-detail"
      hint="Hover over or focus (Tab) a bar or a mark for its detail."
      caption={
        <>
          <ChartLegend />
          Each attempt's calls from start to end, one lane per attempt and one for the compensation; a long
          wait with nothing happening is cut from the time axis (≈, its length on hover); the timeline below
          says the same in words.
        </>
      }
    >
      <ChartAxis axis={axis} left={LABEL_WIDTH} plotWidth={PLOT_WIDTH} top={MARK_ROW} bottom={lanesBottom} />
      {chart.lanes.map((lane, index) => {
        const top = MARK_ROW + index * LANE_HEIGHT;
        return (
          <g key={lane.id} data-lane={lane.id}>
            <LaneHeader
              label={lane.label}
              labelWidth={LABEL_WIDTH}
              right={WIDTH - RIGHT}
              middle={top + LANE_HEIGHT / 2}
              lineAt={top + LANE_HEIGHT}
            />
            {lane.bars.map((bar) => (
              <rect
                key={bar.id}
                className={`bar bar-${bar.outcome}`}
                data-outcome={bar.outcome}
                x={x(bar.start)}
                y={top + 6}
                width={Math.max(x(bar.end) - x(bar.start), 3)}
                height={LANE_HEIGHT - 12}
                {...show(bar.detail)}
              >
                <title>{bar.detail}</title>
              </rect>
            ))}
          </g>
        );
      })}
      {chart.marks.map((mark) => (
        <g key={mark.id} className={`mark mark-${mark.kind}`} data-mark={mark.kind} {...show(mark.detail)}>
          <title>{mark.detail}</title>
          <line x1={x(mark.at)} x2={x(mark.at)} y1={MARK_ROW / 2} y2={lanesBottom} />
          <MarkShape mark={mark} x={x(mark.at)} />
        </g>
      ))}
    </ChartFrame>
  );
}
