/**
 * The order transition log of `npm start`: a concise live log of order transitions (process state,
 * attempt, step status), read by polling the state table of the running app. Plugged into the
 * local runtime as an observer (bin/start-local.ts); the runtime itself knows no app. Local-only
 * tooling: scanning is fine for a developer's table; the supervisor itself never scans.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import {
  type ProcessState,
  StateAttr,
  StepAttr,
  TERMINAL_STATES,
} from '../../../lambdas/scheduler-agent-supervisor/contracts';
import type { LocalRuntimeObserver } from '../../local-runtime';
import { StackOutput } from '../stack';

export type StateRecordView = Readonly<Record<string, unknown>>;

function stepStatuses(record: StateRecordView | undefined): Record<string, string> {
  const steps = record?.[StateAttr.Steps];
  const statuses: Record<string, string> = {};
  if (typeof steps === 'object' && steps !== null) {
    for (const [name, step] of Object.entries(steps as Record<string, unknown>)) {
      const status = (step as Record<string, unknown> | null)?.[StepAttr.Status];
      if (typeof status === 'string') statuses[name] = status;
    }
  }
  return statuses;
}

function lastError(record: StateRecordView): string {
  const error = record[StateAttr.LastError] as Record<string, unknown> | undefined;
  if (!error) return '';
  const parts = [error.Error, error.Cause].filter((part) => typeof part === 'string' && part !== '');
  return parts.length > 0 ? `: ${parts.join(' - ').slice(0, 200)}` : '';
}

/** Lines describing what changed between two versions of one record (none when nothing did). */
export function describeTransitions(
  previous: StateRecordView | undefined,
  current: StateRecordView,
): string[] {
  const orderId = String(current[StateAttr.OrderId]);
  const state = String(current[StateAttr.ProcessState]);
  const attempt = Number(current[StateAttr.Attempt] ?? 0);
  const failures = Number(current[StateAttr.FailureCount] ?? 0);
  const stateLines: string[] = [];
  const stepLines: string[] = [];
  const previousState = previous?.[StateAttr.ProcessState];
  const previousAttempt = Number(previous?.[StateAttr.Attempt] ?? 0);
  const previousFailures = Number(previous?.[StateAttr.FailureCount] ?? 0);
  if (previousState !== state || previousAttempt !== attempt || previousFailures !== failures) {
    const details = [`attempt ${attempt}`];
    if (failures > 0) details.push(`failures ${failures}`);
    const lockedBy = current[StateAttr.LockedBy];
    if (typeof lockedBy === 'string') details.push(`locked by ${lockedBy}`);
    stateLines.push(
      `order ${orderId} ${state} (${details.join(', ')})${state === 'Error' ? lastError(current) : ''}`,
    );
  }
  const before = stepStatuses(previous);
  for (const [step, status] of Object.entries(stepStatuses(current))) {
    if (before[step] !== status && !(previous === undefined && status === 'NotStarted')) {
      stepLines.push(`order ${orderId} step ${step} ${status} (attempt ${attempt})`);
    }
  }
  // Read in the order things happened: a claim before its first step, the last step before the end.
  return TERMINAL_STATES.includes(state as ProcessState)
    ? [...stepLines, ...stateLines]
    : [...stateLines, ...stepLines];
}

export interface TransitionLogOptions {
  readonly dynamodb: DynamoDBClient;
  readonly tableName: string;
  readonly write: (line: string) => void;
  readonly intervalMillis?: number;
}

export class TransitionLog {
  private readonly seen = new Map<string, StateRecordView>();
  private readonly documents: DynamoDBDocumentClient;
  private timer: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;
  private stopped = false;

  constructor(private readonly options: TransitionLogOptions) {
    this.documents = DynamoDBDocumentClient.from(options.dynamodb);
  }

  start(): void {
    const tick = () => {
      if (this.stopped) return;
      this.polling = this.poll()
        .catch((error: Error) => this.options.write(`transition log: ${error.name}: ${error.message}`))
        .finally(() => {
          if (!this.stopped) this.timer = setTimeout(tick, this.options.intervalMillis ?? 500);
        });
    };
    tick();
  }

  private async poll(): Promise<void> {
    let exclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const page = await this.documents.send(
        new ScanCommand({
          TableName: this.options.tableName,
          ExclusiveStartKey: exclusiveStartKey,
          ConsistentRead: true,
        }),
      );
      for (const item of page.Items ?? []) {
        const orderId = String(item[StateAttr.OrderId]);
        const previous = this.seen.get(orderId);
        for (const line of describeTransitions(previous, item)) this.options.write(line);
        this.seen.set(orderId, item);
      }
      exclusiveStartKey = page.LastEvaluatedKey;
    } while (exclusiveStartKey && !this.stopped);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.polling;
  }
}

/** The transition log as a local runtime observer: follows the table named by the StateTableName output. */
export function orderTransitionLog(): LocalRuntimeObserver {
  return {
    name: 'order transition log',
    start: async ({ target, sdkConfig, log }) => {
      const tableName = target.outputs[StackOutput.StateTableName];
      if (!tableName) {
        log(
          `transition log: no ${StackOutput.StateTableName} output in this assembly; order transitions are not logged`,
        );
        return { stop: async () => undefined };
      }
      const dynamodb = new DynamoDBClient(sdkConfig('dynamodb'));
      const transitions = new TransitionLog({ dynamodb, tableName, write: log });
      transitions.start();
      return {
        stop: async () => {
          await transitions.stop();
          dynamodb.destroy();
        },
      };
    },
  };
}
