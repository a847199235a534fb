/**
 * A time chart's axis (the order's timeline chart, the delivery's swimlane): the ticks' lines and
 * times under the lanes, and each gap the axis cut (time-axis.ts) drawn as a break `≈` with its
 * length on hover, so nobody reads the cut as time. One drawing for both charts, so they read alike.
 */
import { durationText } from './duration-text';
import type { TimeAxis } from './time-axis';

const clock = (at: number) => new Date(at).toLocaleTimeString();

export interface ChartAxisProps {
  readonly axis: TimeAxis;
  /** Where the plot starts (after the lanes' labels) and how wide it is. */
  readonly left: number;
  readonly plotWidth: number;
  /** The lanes' top and bottom: ticks and breaks run across them, the times go under. */
  readonly top: number;
  readonly bottom: number;
}

/** The axis's ticks and its cut gaps, under and across the lanes. */
export function ChartAxis({ axis, left, plotWidth, top, bottom }: ChartAxisProps) {
  // A label just after a cut gap starts there, one at the right edge ends there: neither crosses.
  const anchorOf = (tickX: number) =>
    tickX > plotWidth - 40
      ? 'end'
      : axis.breaks.some((gap) => tickX >= gap.x && tickX - gap.x < 40)
        ? 'start'
        : 'middle';
  return (
    <>
      {axis.ticks.map((tick) => (
        <g key={tick.at} className="tick">
          <line x1={left + tick.x} x2={left + tick.x} y1={top} y2={bottom} />
          <text x={left + tick.x} y={bottom + 18} textAnchor={anchorOf(tick.x)}>
            {clock(tick.at)}
          </text>
        </g>
      ))}
      {axis.breaks.map((gap) => (
        <g key={gap.x} className="axis-break" data-break-ms={gap.skippedMs}>
          <title>{`${durationText(gap.skippedMs)} with nothing happening, cut from the axis`}</title>
          <rect x={left + gap.x - 6} y={top} width={12} height={bottom - top} />
          <text x={left + gap.x} y={top + 14} textAnchor="middle">
            ≈
          </text>
        </g>
      ))}
    </>
  );
}
