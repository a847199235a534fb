import type { IConstruct } from 'constructs';
import { CallbackTaskTimeoutsGuardrail } from './callback-task-timeouts';
import { DeadLetterQueuesGuardrail } from './dead-letter-queues';
import { QueueVisibilityGuardrail } from './queue-visibility';
import { RetryBudgetGuardrail } from './retry-budget';

export {
  type AslDefinition,
  type AslState,
  allStates,
  parseDefinition,
  renderCfnString,
} from './asl-definition';
export { CallbackTaskTimeoutsGuardrail } from './callback-task-timeouts';
export { DeadLetterQueuesGuardrail } from './dead-letter-queues';
export { QueueVisibilityGuardrail } from './queue-visibility';
export { type ReadFactor, RetryBudgetGuardrail } from './retry-budget';

/**
 * Synth-time guardrails: rules whose violation would deploy fine and fail quietly in
 * production. Each makes `cdk synth` fail with a message naming the offending resource.
 */
export function applyGuardrails(scope: IConstruct): void {
  scope.node.addValidation(new CallbackTaskTimeoutsGuardrail(scope));
  scope.node.addValidation(new QueueVisibilityGuardrail(scope));
  scope.node.addValidation(new DeadLetterQueuesGuardrail(scope));
  scope.node.addValidation(new RetryBudgetGuardrail(scope));
}
