/**
 * What every campaign's checker shares: a verdict (an invariant or guard with its violations), the
 * runtime's restarts and the downtime they cost a subject in flight, counting helpers.
 */

/** A stop/start of the runtime: work in flight then (an execution, a supervisor run) is cut short. */
export interface RestartWindow {
  /** Alerts that reached the inbox before this were drained and kept. */
  readonly lastDrainAt: number;
  readonly stoppedAt: number;
  readonly readyAt: number;
}

export interface Verdict<Id extends string> {
  readonly id: Id;
  readonly title: string;
  readonly violations: readonly string[];
}

/** Examples listed per violated invariant; the count is always complete. */
const MAX_EXAMPLES = 10;

/** Each denial message once, with how many times it was recorded. */
export function countedDenials(messages: readonly string[]): string[] {
  const counts = new Map<string, number>();
  for (const message of messages) counts.set(message, (counts.get(message) ?? 0) + 1);
  return [...counts].map(([message, count]) => (count > 1 ? `${message} (x${count})` : message));
}

/**
 * Time the runtime was down while an order (or a delivery) was in flight: nothing can progress
 * then. Shared by every campaign's terminal bound.
 */
export function restartDowntimeDuring(
  restarts: readonly RestartWindow[],
  subject: { readonly acceptedAt?: number | undefined; readonly terminalAt?: number | undefined },
): number {
  const start = subject.acceptedAt ?? 0;
  const end = subject.terminalAt ?? Number.POSITIVE_INFINITY;
  return restarts
    .filter((restart) => restart.readyAt > start && restart.lastDrainAt < end)
    .reduce((sum, restart) => sum + (restart.readyAt - restart.lastDrainAt), 0);
}

export function countBy<T>(items: readonly T[], keyOf: (item: T) => string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(keyOf(item), (counts.get(keyOf(item)) ?? 0) + 1);
  return counts;
}

/** The first few violations of a verdict, for printing; the full list stays in the result. */
export function examples(entry: Verdict<string>): readonly string[] {
  return entry.violations.slice(0, MAX_EXAMPLES);
}
