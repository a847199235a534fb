import { Stack } from 'aws-cdk-lib';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import type { IConstruct, IValidation } from 'constructs';
import { allStates, parseDefinition } from './asl-definition';

const CALLBACK_SUFFIX = '.waitForTaskToken';

/**
 * Fails synth when a callback (`.waitForTaskToken`) Task state lacks TimeoutSeconds or
 * HeartbeatSeconds: without them a lost agent reply parks the execution for up to a year
 * and the order is never retried.
 */
export class CallbackTaskTimeoutsGuardrail implements IValidation {
  constructor(private readonly scope: IConstruct) {}

  validate(): string[] {
    const stack = Stack.of(this.scope);
    const errors: string[] = [];
    for (const node of this.scope.node.findAll()) {
      if (!(node instanceof sfn.CfnStateMachine) || node.definitionString === undefined) continue;
      const definition = parseDefinition(stack.resolve(node.definitionString));
      for (const [name, state] of allStates(definition)) {
        if (state.Type !== 'Task' || !state.Resource?.endsWith(CALLBACK_SUFFIX)) continue;
        const missing = [
          typeof state.TimeoutSeconds === 'number' ? undefined : 'TimeoutSeconds',
          typeof state.HeartbeatSeconds === 'number' ? undefined : 'HeartbeatSeconds',
        ].filter((field): field is string => field !== undefined);
        if (missing.length > 0) {
          errors.push(
            `State machine ${node.node.path}: callback task '${name}' (${CALLBACK_SUFFIX}) has no ${missing.join(' and no ')}; set taskTimeout and heartbeatTimeout so a lost reply cannot park the execution`,
          );
        }
      }
    }
    return errors;
  }
}
