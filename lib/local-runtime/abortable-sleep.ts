/**
 * Waits `millis`, or less when `signal` aborts first; never rejects. Pollers idle with it between
 * receives so that stopping the runtime does not wait out their back-off.
 */
export function sleepUnlessAborted(millis: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, millis);
    signal.addEventListener('abort', done, { once: true });
  });
}
