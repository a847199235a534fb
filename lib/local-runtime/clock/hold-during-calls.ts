/**
 * The runtime's own SDK clients (event-source pollers, Step Functions integrations, stream
 * readers) hold the clock for each call, from before it is signed until its answer is read, and
 * name their activity in a header (ACTIVITY_HEADER): the local server that serves the call holds
 * the clock instead while it serves (a long poll parks that hold, so the clock may move), and hands
 * it back before its answer leaves, so nothing is left unheld while an answer is on its way back.
 * On a seeded clock each call waits to be admitted (`admit`), labelled by its command and what it
 * addresses (sdkCallLabel).
 */
import { admitted } from './admitted';
import { ACTIVITY_HEADER, type ClockActivity, type RuntimeClock } from './runtime-clock';
import { sdkCallLabel } from './sdk-call-label';

/** The part of an SDK v3 client this needs (every client has it). */
interface ClientWithMiddleware {
  readonly middlewareStack: {
    add(
      middleware: (
        next: (args: { request?: unknown; input: unknown }) => Promise<unknown>,
        context: CallContext,
      ) => (args: { request?: unknown; input: unknown }) => Promise<unknown>,
      options: { step: 'initialize' | 'build'; name: string; priority: 'high' },
    ): void;
  };
}

interface CallContext {
  commandName?: string;
  [HELD]?: ClockActivity;
}

const HELD = Symbol('localRuntimeClockActivity');

/** `actor`: who calls with the client (a stream consumer, a state machine), for the label. */
export function holdDuringCalls<T>(client: T, clock: RuntimeClock, actor?: string): T {
  if (clock.mode === 'wall') return client;
  const stack = (client as unknown as ClientWithMiddleware).middlewareStack;
  // From the first step: the SDK's own asynchronous work before the request is built (reading its
  // configuration once) is part of the call, or the call would reach its turn at a time the
  // machine decides.
  stack.add(
    (next, context) => async (args) => {
      const label = sdkCallLabel(context.commandName, args.input);
      const activity = await admitted(clock, actor === undefined ? label : `${label} by ${actor}`);
      context[HELD] = activity;
      try {
        return await next(args);
      } finally {
        activity.release();
      }
    },
    { step: 'initialize', name: 'localRuntimeClockHold', priority: 'high' },
  );
  stack.add(
    (next, context) => async (args) => {
      const request = args.request as { headers?: Record<string, string> } | undefined;
      const activity = context[HELD];
      if (request?.headers && activity) request.headers[ACTIVITY_HEADER] = activity.id;
      return next(args);
    },
    { step: 'build', name: 'localRuntimeClockActivityHeader', priority: 'high' },
  );
  return client;
}
