import { type SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { hasErrorName } from '../../shared/errors';
import type { WorkflowExecution, WorkflowStarter } from '../domain/ports';

/**
 * Starts scheduler executions (Step Functions Standard) on the state machine of the execution's
 * workflow version; the execution name is the attempt's id.
 */
export class SfnWorkflowStarter implements WorkflowStarter {
  constructor(
    private readonly client: SFNClient,
    private readonly stateMachines: ReadonlyMap<number, string>,
  ) {
    if (stateMachines.size === 0) {
      throw new Error('SfnWorkflowStarter: at least one workflow state machine is required');
    }
  }

  async start(execution: WorkflowExecution): Promise<'started' | 'already-started'> {
    const stateMachineArn = this.stateMachines.get(execution.workflowVersion);
    if (stateMachineArn === undefined) {
      // The domain refuses such a record before claiming it; this guards a caller that did not.
      throw new Error(`No state machine for workflow version ${execution.workflowVersion}`);
    }
    try {
      await this.client.send(
        new StartExecutionCommand({
          stateMachineArn,
          name: execution.name,
          input: execution.input,
        }),
      );
      return 'started';
    } catch (error) {
      // Same name, different input or a closed execution: either way this attempt was started before.
      if (hasErrorName(error, 'ExecutionAlreadyExists')) {
        return 'already-started';
      }
      throw error;
    }
  }
}
