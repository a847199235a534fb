/**
 * The runtime's own SDK clients (event-source pollers, Step Functions integrations, stream
 * readers) hold the clock for each call, from before it is signed until its answer is read, and
 * name their activity in a header (ACTIVITY_HEADER): the local server that serves the call holds
 * the clock instead while it serves (a long poll parks that hold, so the clock may move), and hands
 * it back before its answer leaves, so nothing is left unheld while an answer is on its way back.
 */
import { ACTIVITY_HEADER, type RuntimeClock } from './runtime-clock';

/** The part of an SDK v3 client this needs (every client has it). */
interface ClientWithMiddleware {
  readonly middlewareStack: {
    add(
      middleware: (
        next: (args: { request: unknown }) => Promise<unknown>,
      ) => (args: { request: unknown }) => Promise<unknown>,
      options: { step: 'build'; name: string; priority: 'high' },
    ): void;
  };
}

export function holdDuringCalls<T>(client: T, clock: RuntimeClock): T {
  if (clock.mode === 'wall') return client;
  (client as unknown as ClientWithMiddleware).middlewareStack.add(
    (next) => async (args) => {
      const activity = clock.hold('sdk call');
      const request = args.request as { headers?: Record<string, string> };
      if (request.headers) request.headers[ACTIVITY_HEADER] = activity.id;
      try {
        return await next(args);
      } finally {
        activity.release();
      }
    },
    { step: 'build', name: 'localRuntimeClockHold', priority: 'high' },
  );
  return client;
}
