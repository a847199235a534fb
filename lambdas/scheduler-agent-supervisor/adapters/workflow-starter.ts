import { type SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { hasErrorName } from '../../shared/errors';
import type { WorkflowExecution, WorkflowStarter } from '../domain/ports';

/** Starts scheduler executions (Step Functions Standard); the execution name is the attempt's id. */
export class SfnWorkflowStarter implements WorkflowStarter {
  constructor(
    private readonly client: SFNClient,
    private readonly stateMachineArn: string,
  ) {
    if (!stateMachineArn) {
      throw new Error('SfnWorkflowStarter: stateMachineArn is required');
    }
  }

  async start(execution: WorkflowExecution): Promise<'started' | 'already-started'> {
    try {
      await this.client.send(
        new StartExecutionCommand({
          stateMachineArn: this.stateMachineArn,
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
