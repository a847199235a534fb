/**
 * The detail line under a chart (the order's timeline chart, the delivery's swimlane): each bar or
 * mark is a button in the Tab order named by its detail, and focus, hover, a click, Enter or Space
 * on it shows that detail in the line (an aria-live line, so a screen reader says it too). One
 * behaviour for every chart, so the keyboard works the same in each. The role is given here, as an
 * attribute: an SVG shape cannot be an HTML <button>.
 */
import { type KeyboardEvent, useState } from 'react';

export function useChartDetail() {
  const [detail, setDetail] = useState<string>();
  const show = (text: string) => ({
    tabIndex: 0,
    role: 'button',
    'aria-label': text,
    onFocus: () => setDetail(text),
    onMouseEnter: () => setDetail(text),
    onClick: () => setDetail(text),
    onKeyDown: (event: KeyboardEvent) => {
      if (event.key === 'Enter' || event.key === ' ') setDetail(text);
    },
  });
  return { detail, show };
}
