/**
 * Step Functions task-token callbacks (SendTaskSuccess / SendTaskFailure / SendTaskHeartbeat).
 * A task that is already gone (timed out, heartbeat-timed-out, execution ended) answers with one of
 * LATE_REPLY_ERRORS: that is reported as 'late' rather than thrown, because retrying it can never
 * succeed; every other error is thrown so the SQS message is redelivered and the answer retried.
 */
import {
  SendTaskFailureCommand,
  SendTaskHeartbeatCommand,
  SendTaskSuccessCommand,
  type SFNClient,
} from '@aws-sdk/client-sfn';
import { hasErrorName } from '../../shared/errors';
import type { AgentResult } from '../contracts';
import type { CallbackDelivery, Heartbeats, TaskCallbacks } from '../domain/ports';

export const LATE_REPLY_ERRORS: readonly string[] = ['TaskTimedOut', 'InvalidToken', 'TaskDoesNotExist'];

/** SendTaskFailure limits (Step Functions API): error 256 characters, cause 32768. */
const MAX_ERROR_LENGTH = 256;
const MAX_CAUSE_LENGTH = 32_768;

export function isLateReplyError(error: unknown): boolean {
  return hasErrorName(error, ...LATE_REPLY_ERRORS);
}

async function deliver(send: () => Promise<unknown>): Promise<CallbackDelivery> {
  try {
    await send();
    return 'delivered';
  } catch (error) {
    if (isLateReplyError(error)) return 'late';
    throw error;
  }
}

export class StepFunctionsTaskCallbacks implements TaskCallbacks {
  constructor(private readonly sfn: SFNClient) {}

  succeed(taskToken: string, result: AgentResult): Promise<CallbackDelivery> {
    return deliver(() =>
      this.sfn.send(new SendTaskSuccessCommand({ taskToken, output: JSON.stringify(result) })),
    );
  }

  fail(taskToken: string, error: string, cause: string): Promise<CallbackDelivery> {
    return deliver(() =>
      this.sfn.send(
        new SendTaskFailureCommand({
          taskToken,
          error: error.slice(0, MAX_ERROR_LENGTH),
          cause: cause.slice(0, MAX_CAUSE_LENGTH),
        }),
      ),
    );
  }

  heartbeat(taskToken: string): Promise<CallbackDelivery> {
    return deliver(() => this.sfn.send(new SendTaskHeartbeatCommand({ taskToken })));
  }
}

export interface HeartbeatListener {
  /** The task is gone; heartbeats stop (the call in flight still finishes and is recorded). */
  onLate?(taskToken: string): void;
  /** A heartbeat failed for another reason; the next one is still sent. */
  onError?(error: unknown): void;
}

/**
 * Sends heartbeats while a remote call is in progress: one at once, then on a timer. The first beat
 * is immediate because Step Functions starts the HeartbeatSeconds clock when it sends the request
 * message: queue wait and a cold start have already used part of that window. Beats never overlap:
 * the next one is scheduled only once the previous one has answered, so a slow API cannot pile
 * them up.
 */
export class TimerHeartbeats implements Heartbeats {
  constructor(
    private readonly callbacks: Pick<StepFunctionsTaskCallbacks, 'heartbeat'>,
    private readonly listener: HeartbeatListener = {},
  ) {}

  start(taskToken: string, intervalMillis: number): () => void {
    let stopped = false;
    let timer: NodeJS.Timeout | undefined;
    const beat = async (): Promise<void> => {
      try {
        if ((await this.callbacks.heartbeat(taskToken)) === 'late') {
          stopped = true;
          this.listener.onLate?.(taskToken);
        }
      } catch (error) {
        this.listener.onError?.(error);
      }
      schedule();
    };
    const schedule = (): void => {
      if (stopped) return;
      timer = setTimeout(() => void beat(), intervalMillis);
    };
    void beat();
    return () => {
      stopped = true;
      if (timer) clearTimeout(timer);
    };
  }
}
