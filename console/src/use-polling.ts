import { useCallback, useEffect, useRef, useState } from 'react';

/**
 * Live updates by polling: every POLL_INTERVAL_MS the view reads again. Polling rather than
 * server-sent events because the deployed console would call API Gateway, which answers each
 * request and holds no stream open; the same code then works locally and deployed.
 */
export const POLL_INTERVAL_MS = 2_000;

export interface Polled<T> {
  readonly data?: T;
  readonly error?: string;
  readonly loadedAt?: Date;
  /** Reads now (after an action), without waiting for the next tick. */
  readonly refresh: () => void;
}

export interface PollingOptions {
  /**
   * No reading on a timer while true (a finished execution's workflow: nothing will change it);
   * the first read of a key and `refresh` still read. @default false
   */
  readonly paused?: boolean;
  /** How often to read again (the dashboard's metrics read less often: DashboardView). @default POLL_INTERVAL_MS */
  readonly intervalMs?: number;
}

export function usePolling<T>(load: () => Promise<T>, key: string, options: PollingOptions = {}): Polled<T> {
  // Tagged with the key it was read for: after the key changes, the previous key's data (another
  // order's state) is never shown under the new heading, not even for the render before the effect.
  const [state, setState] = useState<{ key?: string; data?: T; error?: string; loadedAt?: Date }>({});
  const loadRef = useRef(load);
  loadRef.current = load;
  const keyRef = useRef(key);
  keyRef.current = key;
  const generation = useRef(0);
  const run = useCallback(async () => {
    const mine = generation.current;
    try {
      const data = await loadRef.current();
      if (mine === generation.current) setState({ key: keyRef.current, data, loadedAt: new Date() });
    } catch (error) {
      // The last good data stays on screen beside the error: a blip does not blank the page.
      if (mine === generation.current)
        setState((previous) => ({ ...previous, key: keyRef.current, error: (error as Error).message }));
    }
  }, []);
  // biome-ignore lint/correctness/useExhaustiveDependencies: `key` names what is loaded; a new one starts over
  useEffect(() => {
    generation.current += 1;
    setState({});
    void run();
  }, [key, run]);
  const { paused = false, intervalMs = POLL_INTERVAL_MS } = options;
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new key starts its timer over
  useEffect(() => {
    if (paused) return;
    const timer = setInterval(() => void run(), intervalMs);
    return () => clearInterval(timer);
  }, [key, run, paused, intervalMs]);
  const { key: _readFor, ...current } = state.key === key ? state : {};
  return { ...current, refresh: () => void run() };
}
