/**
 * Task tokens of `.waitForTaskToken` tasks: minted per task entry (a retry gets a new one), answered
 * by SendTaskSuccess / SendTaskFailure, kept alive by SendTaskHeartbeat, and closed for good when
 * the task ends any other way (timeout, heartbeat timeout, stopped execution). A closed token
 * answers TaskTimedOut, as on AWS; a token this runtime never issued answers InvalidToken.
 */

import { type ClockTimer, type RuntimeClock, WallClock } from '../clock';
import { mintBytes } from '../minted-ids';
import { SfnApiError, TaskFailure } from './errors';

const TOKEN_PREFIX = 'lsfn1.';
const TOKEN_PATTERN = /^lsfn1\.[A-Za-z0-9_-]{64}$/;

export type TaskTimeoutError = 'States.Timeout' | 'States.HeartbeatTimeout';

export interface TaskTokenOwner {
  readonly executionArn: string;
  readonly stateName: string;
  /** The task's effective TimeoutSeconds (the engine raises States.Timeout at the same moment). */
  readonly timeoutSeconds: number;
  readonly heartbeatSeconds?: number;
}

export interface TaskTokenRegistryOptions {
  /** Closed tokens remembered so late replies get TaskTimedOut; older ones fall back to InvalidToken. */
  readonly maxClosedTokens: number;
  /** Called when a waiting task times out (after its token is closed). */
  readonly onTimeout: (owner: TaskTokenOwner, error: TaskTimeoutError) => void;
  /**
   * The timers' clock. On a virtual clock the engine's own task timer (a wall-clock timer inside
   * aws-local-stepfunctions) would come late, so the token's timeout fails the task itself with
   * States.Timeout. @default - the wall clock
   */
  readonly clock?: RuntimeClock;
}

interface OpenTask {
  readonly owner: TaskTokenOwner;
  readonly resolve: (output: unknown) => void;
  readonly reject: (error: Error) => void;
  readonly timeoutTimer: ClockTimer;
  heartbeatTimer: ClockTimer | undefined;
}

export class TaskTokenRegistry {
  private readonly open = new Map<string, OpenTask>();
  /** Closed tokens: why each closed, and its execution (for IAM: whose state machine it answers). */
  private readonly closed = new Map<string, { readonly reason: string; readonly executionArn: string }>();
  private readonly byExecution = new Map<string, Set<string>>();

  private readonly clock: RuntimeClock;

  constructor(private readonly options: TaskTokenRegistryOptions) {
    this.clock = options.clock ?? new WallClock();
  }

  /**
   * Mints a token and arms its timers. Synchronous on purpose: it runs before the engine arms its
   * own task timer for the same duration, so at the deadline the token is closed first and the
   * engine then raises the genuine States.Timeout (the outcome promise is left unsettled for it).
   */
  issue(owner: TaskTokenOwner): { readonly token: string; readonly outcome: Promise<unknown> } {
    const token = `${TOKEN_PREFIX}${mintBytes(48).toString('base64url')}`;
    let resolve!: (output: unknown) => void;
    let reject!: (error: Error) => void;
    const promise = new Promise<unknown>((onResolve, onReject) => {
      resolve = onResolve;
      reject = onReject;
    });
    // The outcome may be rejected (heartbeat timeout, stop) before the task awaits it.
    promise.catch(() => undefined);
    const timeoutTimer = this.clock.setTimer(() => {
      this.closeToken(token, 'timed out');
      if (this.clock.mode === 'virtual') {
        reject(
          new TaskFailure(
            'States.Timeout',
            `Task timed out after ${owner.timeoutSeconds} s (TimeoutSeconds)`,
            { timedOut: true },
          ),
        );
      }
      this.options.onTimeout(owner, 'States.Timeout');
    }, owner.timeoutSeconds * 1000);
    const task: OpenTask = { owner, resolve, reject, timeoutTimer, heartbeatTimer: undefined };
    this.open.set(token, task);
    this.armHeartbeat(token, task);
    let tokens = this.byExecution.get(owner.executionArn);
    if (!tokens) {
      tokens = new Set();
      this.byExecution.set(owner.executionArn, tokens);
    }
    tokens.add(token);
    return { token, outcome: promise };
  }

  succeed(token: string, output: unknown): TaskTokenOwner {
    const task = this.take(token);
    task.resolve(output);
    return task.owner;
  }

  fail(token: string, error: string, cause: string): TaskTokenOwner {
    const task = this.take(token);
    task.reject(new TaskFailure(error, cause));
    return task.owner;
  }

  heartbeat(token: string): void {
    const task = this.lookup(token);
    this.armHeartbeat(token, task);
  }

  /** The task ended without an answer (its integration call failed): late answers get TaskTimedOut. */
  release(token: string): void {
    this.closeToken(token, 'released');
  }

  /** Ends every waiting task of an execution (stopped, timed out, runtime shutdown). */
  abortExecution(executionArn: string, reason: Error): void {
    for (const token of [...(this.byExecution.get(executionArn) ?? [])]) {
      const task = this.open.get(token);
      this.closeToken(token, 'execution ended');
      task?.reject(reason);
    }
    this.byExecution.delete(executionArn);
  }

  /** The execution a token (open, or closed and remembered) was issued to; undefined if unknown. */
  executionOf(token: string): string | undefined {
    return this.open.get(token)?.owner.executionArn ?? this.closed.get(token)?.executionArn;
  }

  openTokenCount(): number {
    return this.open.size;
  }

  private armHeartbeat(token: string, task: OpenTask): void {
    task.heartbeatTimer?.cancel();
    const seconds = task.owner.heartbeatSeconds;
    if (seconds === undefined) return;
    task.heartbeatTimer = this.clock.setTimer(() => {
      this.closeToken(token, 'heartbeat timed out');
      task.reject(
        new TaskFailure(
          'States.HeartbeatTimeout',
          `No heartbeat for ${seconds} s (HeartbeatSeconds ${seconds})`,
          { timedOut: true },
        ),
      );
      this.options.onTimeout(task.owner, 'States.HeartbeatTimeout');
    }, seconds * 1000);
  }

  private lookup(token: string): OpenTask {
    const task = this.open.get(token);
    if (task) return task;
    if (this.closed.has(token)) {
      throw new SfnApiError(
        'TaskTimedOut',
        `Task Timed Out: the task of this token has already ended (${this.closed.get(token)?.reason})`,
      );
    }
    if (!TOKEN_PATTERN.test(token)) {
      throw new SfnApiError(
        'InvalidToken',
        'Invalid token: not a task token issued by this Step Functions runtime',
      );
    }
    throw new SfnApiError(
      'InvalidToken',
      'Invalid token: unknown task token (issued by another runtime or expired from memory)',
    );
  }

  private take(token: string): OpenTask {
    const task = this.lookup(token);
    this.closeToken(token, 'answered');
    return task;
  }

  private closeToken(token: string, reason: string): void {
    const task = this.open.get(token);
    if (!task) return;
    task.timeoutTimer.cancel();
    task.heartbeatTimer?.cancel();
    this.open.delete(token);
    this.byExecution.get(task.owner.executionArn)?.delete(token);
    this.closed.set(token, { reason, executionArn: task.owner.executionArn });
    if (this.closed.size > this.options.maxClosedTokens) {
      const oldest = this.closed.keys().next();
      if (!oldest.done) this.closed.delete(oldest.value);
    }
  }
}
