/**
 * A chart lane's header (the order's timeline chart, the delivery's swimlane): its label right-aligned
 * before the plot, and its line across the plot. One drawing, so the charts' lanes read alike.
 */

export interface LaneHeaderProps {
  readonly label: string;
  /** Where the plot starts: the label ends just before it, the line starts there. */
  readonly labelWidth: number;
  /** Where the line ends. */
  readonly right: number;
  /** The lane's middle, where the label sits. */
  readonly middle: number;
  /** Where the line runs: under the lane (a border) or through its middle (the marks' track). */
  readonly lineAt: number;
}

export function LaneHeader({ label, labelWidth, right, middle, lineAt }: LaneHeaderProps) {
  return (
    <>
      <text className="lane-label" x={labelWidth - 8} y={middle + 4} textAnchor="end">
        {label}
      </text>
      <line className="lane-line" x1={labelWidth} x2={right} y1={lineAt} y2={lineAt} />
    </>
  );
}
