import { AwsApiError } from '../protocol/aws-api-error';

/**
 * An error raised inside a Task state. The engine matches Retry/Catch on `name` and exposes
 * `message` as the Cause, exactly like Step Functions' `{ Error, Cause }` pair; it reads
 * `isRetryable` / `isCatchable` to decide whether ASL may handle it at all.
 */
export class TaskFailure extends Error {
  readonly isRetryable: boolean;
  readonly isCatchable: boolean;
  /** A token timeout the token registry has reported (TaskTimedOut): not a TaskFailed. */
  readonly timedOut: boolean;

  constructor(
    errorName: string,
    cause: string,
    options: { readonly terminal?: boolean; readonly timedOut?: boolean } = {},
  ) {
    super(cause);
    this.name = errorName;
    this.timedOut = options.timedOut ?? false;
    // A terminal failure (the runtime cannot run this task at all) ends the execution the way
    // States.Runtime does on AWS: no Retry or Catch may swallow a configuration mistake.
    this.isRetryable = !options.terminal;
    this.isCatchable = !options.terminal;
  }
}

/** States.Runtime: the definition asks for something this runtime cannot do; never caught. */
export function runtimeFailure(cause: string): TaskFailure {
  return new TaskFailure('States.Runtime', cause, { terminal: true });
}

/** An error answered by the Step Functions API as `{ __type, message }` with HTTP 400. */
export class SfnApiError extends AwsApiError {}
