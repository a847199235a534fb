/**
 * Step Functions' quotas the local runtime enforces, each with the AWS page that states it, and the
 * errors AWS answers past them: the API refuses a request (ValidationException, InvalidName), a
 * running execution fails with States.DataLimitExceeded (runtime.ts).
 */

/**
 * "Maximum input or output size for a task, state, or execution: 256 KiB of data as a UTF-8 encoded
 * string" (hard quota), and the API's own constraint on StartExecution's input and SendTaskSuccess's
 * output: "Maximum length of 262144".
 * https://docs.aws.amazon.com/step-functions/latest/dg/service-quotas.html#service-limits-task-executions
 * https://docs.aws.amazon.com/step-functions/latest/apireference/API_StartExecution.html
 * https://docs.aws.amazon.com/step-functions/latest/apireference/API_SendTaskSuccess.html
 */
export const MAX_PAYLOAD_BYTES = 262_144;

/**
 * Execution names: "Length Constraints: Minimum length of 1. Maximum length of 80", and a name "must
 * not contain: white space, brackets < > { } [ ], wildcard characters ? *, special characters " # %
 * \ ^ | ~ ` $ & , ; : /, control characters (U+0000-001F, U+007F-009F)".
 * https://docs.aws.amazon.com/step-functions/latest/apireference/API_StartExecution.html
 * https://docs.aws.amazon.com/step-functions/latest/dg/service-quotas.html#service-limits-general
 */
export const MAX_EXECUTION_NAME_LENGTH = 80;
export const FORBIDDEN_NAME_CHARACTERS = /[\s<>{}[\]?*"#%\\^|~`$&,;:/]/;

/**
 * Task tokens (SendTaskSuccess, SendTaskFailure, SendTaskHeartbeat): "Minimum length of 1. Maximum
 * length of 2048".
 * https://docs.aws.amazon.com/step-functions/latest/apireference/API_SendTaskSuccess.html
 */
export const MAX_TASK_TOKEN_LENGTH = 2048;

/**
 * What AWS answers when a request breaks a length constraint of the API's model: a
 * ValidationException (https://docs.aws.amazon.com/step-functions/latest/apireference/CommonErrors.html)
 * worded by its validation layer. The wordings below are AWS's as observed in public reports (a
 * sensitive field, like input and output, is not echoed); the docs do not quote them.
 */
export function lengthConstraintMessage(field: string, value: string | undefined, maximum: number): string {
  const shown = value === undefined ? '' : ` '${value}'`;
  return `1 validation error detected: Value${shown} at '${field}' failed to satisfy constraint: Member must have length less than or equal to ${maximum}`;
}

export function payloadConstraintMessage(field: 'input' | 'output'): string {
  return `1 validation error detected: Value at '${field}' failed to satisfy constraint: Member must have size less than or equal to ${MAX_PAYLOAD_BYTES} bytes in UTF-8 encoding`;
}

/**
 * States.DataLimitExceeded, "reported due to the following conditions: when the output of a
 * connector is larger than payload size quota; when the output of a state is larger than payload size
 * quota; when, after Parameters processing, the input of a state is larger than the payload size
 * quota"; "a terminal error that can't be caught by the States.ALL error type".
 * https://docs.aws.amazon.com/step-functions/latest/dg/concepts-error-handling.html
 */
export const DATA_LIMIT_EXCEEDED = 'States.DataLimitExceeded';

/** The cause AWS gives for a task result over the quota (as AWS reports it in executions' errors). */
export function taskResultTooLarge(resource: string): string {
  return `The state/task '${resource}' returned a result with a size exceeding the maximum number of bytes service limit.`;
}

/** UTF-8 bytes of a JSON value as Step Functions measures a payload (its JSON text). */
export function payloadBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value ?? null) ?? 'null', 'utf8');
}
