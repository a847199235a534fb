/**
 * The detail line under a chart (the order's timeline chart, the delivery's swimlane): focus, hover,
 * a click, Enter or Space on a bar or mark shows its detail there (an aria-live line, so a screen
 * reader says it too). One behaviour for every chart, so the keyboard works the same in each.
 */
import { type KeyboardEvent, useState } from 'react';

export function useChartDetail() {
  const [detail, setDetail] = useState<string>();
  const show = (text: string) => ({
    onFocus: () => setDetail(text),
    onMouseEnter: () => setDetail(text),
    onClick: () => setDetail(text),
    onKeyDown: (event: KeyboardEvent) => {
      if (event.key === 'Enter' || event.key === ' ') setDetail(text);
    },
  });
  return { detail, show };
}
