/**
 * A delivery's trail across services as a swimlane (issue 26, item 3): one lane per service in the
 * flow's order, each event it published a mark at its time, remediation's decisions, the alerts and
 * the dead letters (on the lane of the service that dead-lettered them) on the same time axis, cut
 * where nothing happened for long (time-axis.ts, as the order's chart). Plain React SVG, as
 * OrderChart.tsx and for the same reasons; every mark is focusable and says its detail (type,
 * sequence, correlation id) in the line under the chart; the trail table below stays the text
 * equivalent. Each kind has its own shape, so colour is never the only sign.
 */
import type { DeliveryDetailBody } from '../contract/console-api';
import { ChartAxis } from './ChartAxis';
import { ChartFrame } from './ChartFrame';
import { deliverySwimlaneOf, type SwimlaneMarkKind } from './delivery-swimlane';
import { LaneHeader } from './LaneHeader';
import { timeAxisOf } from './time-axis';
import { useChartDetail } from './use-chart-detail';

const WIDTH = 960;
const LABEL_WIDTH = 150;
const RIGHT = 16;
const TOP = 8;
const LANE_HEIGHT = 30;
const AXIS_HEIGHT = 30;
/** Room inside the plot at both ends, so a mark at the first or last moment is whole. */
const INSET = 10;
const PLOT_LEFT = LABEL_WIDTH + INSET;
const PLOT_WIDTH = WIDTH - PLOT_LEFT - RIGHT - INSET;
/** Marks of one lane closer than this are set apart, so each stays visible and clickable. */
const MARK_SPACING = 11;

const KINDS: readonly { readonly kind: SwimlaneMarkKind; readonly label: string; readonly key: string }[] = [
  { kind: 'event', label: 'event published', key: '●' },
  { kind: 'decision', label: 'remediation decision', key: '◆' },
  { kind: 'dead-letter', label: 'dead letter', key: '✕' },
  { kind: 'alert', label: 'alert to operators', key: '▲' },
];

function MarkShape({
  kind,
  x,
  y,
}: {
  readonly kind: SwimlaneMarkKind;
  readonly x: number;
  readonly y: number;
}) {
  if (kind === 'event') return <circle cx={x} cy={y} r={5} />;
  if (kind === 'decision')
    return <polygon points={`${x},${y - 7} ${x + 7},${y} ${x},${y + 7} ${x - 7},${y}`} />;
  if (kind === 'alert') return <polygon points={`${x - 6},${y + 6} ${x + 6},${y + 6} ${x},${y - 6}`} />;
  return <path d={`M${x - 5},${y - 5}L${x + 5},${y + 5}M${x + 5},${y - 5}L${x - 5},${y + 5}`} />;
}

/**
 * The marks' x in time order, each at least MARK_SPACING after the one before it, none past `right`
 * (a crowd at the end is set back leftwards from there).
 */
function spread(xs: readonly number[], right: number): number[] {
  const placed: number[] = [];
  for (const x of xs) placed.push(Math.max(x, (placed[placed.length - 1] ?? -Infinity) + MARK_SPACING));
  let limit = right;
  for (let index = placed.length - 1; index >= 0; index -= 1) {
    placed[index] = Math.min(placed[index] ?? 0, limit);
    limit = (placed[index] ?? 0) - MARK_SPACING;
  }
  return placed;
}

/** What each shape means. */
function SwimlaneLegend() {
  return (
    <ul className="chart-legend">
      {KINDS.map(({ kind, label, key }) => (
        <li key={kind}>
          <span className={`key-${kind}`}>{key}</span> {label}
        </li>
      ))}
    </ul>
  );
}

export function DeliverySwimlane({ delivery }: { readonly delivery: DeliveryDetailBody }) {
  const swimlane = deliverySwimlaneOf(delivery);
  const { detail, show } = useChartDetail();
  const axis = timeAxisOf(swimlane.spans, PLOT_WIDTH);
  const lanesBottom = TOP + swimlane.lanes.length * LANE_HEIGHT;
  const marks = swimlane.lanes.reduce((count, lane) => count + lane.marks.length, 0);
  return (
    <ChartFrame
      className="delivery-swimlane"
      titleId="delivery-swimlane-title"
      title={`Trail of delivery ${delivery.deliveryId} on a time axis: ${swimlane.lanes.length} services, ${marks} marks`}
      width={WIDTH}
      height={lanesBottom + AXIS_HEIGHT}
      detail={detail}
      detailTestId="swimlane-detail"
      hint="Hover over or focus (Tab) a mark for its detail."
      caption={
        <>
          <SwimlaneLegend />
          One lane per service, each mark what it published or met, in time order (marks at the same moment
          are set side by side); a long wait with nothing happening is cut from the time axis (≈, its length
          on hover); the trail below says the same in words.
        </>
      }
    >
      <ChartAxis axis={axis} left={PLOT_LEFT} plotWidth={PLOT_WIDTH} top={TOP} bottom={lanesBottom} />
      {swimlane.lanes.map((lane, index) => {
        const middle = TOP + index * LANE_HEIGHT + LANE_HEIGHT / 2;
        const xs = spread(
          lane.marks.map((mark) => PLOT_LEFT + axis.x(mark.at)),
          PLOT_LEFT + PLOT_WIDTH + INSET,
        );
        return (
          <g key={lane.id} data-lane={lane.id}>
            <LaneHeader
              label={lane.label}
              labelWidth={LABEL_WIDTH}
              right={WIDTH - RIGHT}
              middle={middle}
              lineAt={middle}
            />
            {lane.marks.map((mark, markIndex) => (
              <g
                key={mark.id}
                className={`mark mark-${mark.kind}`}
                data-mark={mark.kind}
                {...show(mark.detail)}
              >
                <title>{mark.detail}</title>
                <MarkShape kind={mark.kind} x={xs[markIndex] ?? 0} y={middle} />
              </g>
            ))}
          </g>
        );
      })}
    </ChartFrame>
  );
}
