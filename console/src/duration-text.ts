/**
 * A length of time in words, as every chart of the console says it (a call's bar in the order's
 * chart, a gap cut from a chart's time axis): seconds to a tenth up to a minute and a half, minutes
 * to a tenth beyond. One formatter, so the same length never reads two ways on one page.
 */
export function durationText(ms: number): string {
  return ms >= 90_000 ? `${Math.round(ms / 6000) / 10} min` : `${Math.round(ms / 100) / 10} s`;
}
