/**
 * What every time chart of the console is framed by (the order's timeline chart, the delivery's
 * swimlane): a figure whose SVG scrolls sideways in its own box on a narrow screen and is named by
 * its title, the live line under it that says the focused bar's or mark's detail, and a caption with
 * the legend. One frame, so the charts read, scroll and speak alike.
 */
import type { ReactNode } from 'react';

export interface ChartFrameProps {
  /** The chart's own class (besides `time-chart`). */
  readonly className: string;
  readonly titleId: string;
  /** The SVG's accessible name: what it draws, with its counts. */
  readonly title: string;
  readonly width: number;
  readonly height: number;
  /**
   * Drawn at its own size (its box scrolls), not scaled to the page's width: a graph wider than the
   * page would be unreadably small. @default false
   */
  readonly naturalSize?: boolean;
  /** The detail of the bar or mark last focused, hovered or clicked (use-chart-detail.ts). */
  readonly detail: string | undefined;
  readonly detailTestId: string;
  /** The detail line before anything is focused. */
  readonly hint: string;
  readonly caption: ReactNode;
  readonly children: ReactNode;
}

export function ChartFrame(props: ChartFrameProps) {
  return (
    <figure className={`time-chart ${props.className}`}>
      <div className="chart-scroll">
        <svg
          viewBox={`0 0 ${props.width} ${props.height}`}
          aria-labelledby={props.titleId}
          {...(props.naturalSize && { width: props.width, height: props.height, className: 'natural-size' })}
        >
          <title id={props.titleId}>{props.title}</title>
          {props.children}
        </svg>
      </div>
      <p className="chart-detail" aria-live="polite" data-testid={props.detailTestId}>
        {props.detail ?? props.hint}
      </p>
      <figcaption>{props.caption}</figcaption>
    </figure>
  );
}
