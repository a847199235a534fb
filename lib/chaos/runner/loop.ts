/**
 * Pieces of a campaign's main loop that every campaign shares: waiting, a submission retried until
 * the API answers for good, and a sampler that ticks while the runtime is up.
 */
import type { SubmitOutcome } from './system';

export const sleep = (millis: number) =>
  new Promise<void>((resolveSleep) => setTimeout(resolveSleep, millis));

export type SubmissionResult = { readonly acceptedAt: number } | { readonly refused: string };

/**
 * Submits until accepted or refused: transport errors, 429 and 5xx are retried (after Retry-After),
 * nothing is sent while `paused()` (the runtime is restarting), and after `giveUpMillis` it stops.
 */
export async function submitUntilAnswered(
  submit: () => Promise<SubmitOutcome>,
  paused: () => boolean,
  giveUpMillis: number,
): Promise<SubmissionResult> {
  const giveUpAt = Date.now() + giveUpMillis;
  while (Date.now() < giveUpAt) {
    if (paused()) {
      await sleep(200);
      continue;
    }
    const outcome = await submit();
    if (outcome.kind === 'accepted') return { acceptedAt: Date.now() };
    if (outcome.kind === 'refused') {
      return { refused: `HTTP ${outcome.status}: ${outcome.body.slice(0, 200)}` };
    }
    await sleep(outcome.afterMillis);
  }
  return { refused: 'gave up retrying the submission' };
}

/**
 * Runs `tick` every `intervalMillis` until stopped, skipping ticks while `paused()`; a failed tick is
 * logged (unless paused meanwhile) and the next one tries again. `stop` resolves after the last tick.
 */
export function startSampler(
  tick: () => Promise<void>,
  paused: () => boolean,
  intervalMillis: number,
  log: (line: string) => void,
): { stop(): Promise<void> } {
  let running = true;
  const loop = (async () => {
    while (running) {
      if (!paused()) {
        try {
          await tick();
        } catch (error) {
          if (!paused()) log(`[chaos] sampling failed (will retry): ${(error as Error).message}`);
        }
      }
      await sleep(intervalMillis);
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
    },
  };
}
