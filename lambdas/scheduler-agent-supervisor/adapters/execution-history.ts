import { DescribeExecutionCommand, type SFNClient } from '@aws-sdk/client-sfn';
import { hasErrorName } from '../../shared/errors';
import type { ExecutionHistory, ExecutionSummary } from '../domain/ports';

/**
 * Reads the scheduler's executions by name (`<orderId>--attempt-<n>`). Needs only
 * states:DescribeExecution on the state machine's executions.
 */
export class SfnExecutionHistory implements ExecutionHistory {
  private readonly executionArnPrefix: string;

  constructor(
    private readonly client: SFNClient,
    stateMachineArn: string,
  ) {
    // arn:<partition>:states:<region>:<account>:stateMachine:<name> -> ...:execution:<name>:
    const match = /^(arn:[^:]+:states:[^:]*:[^:]*):stateMachine:([^:]+)$/.exec(stateMachineArn);
    if (!match) throw new Error(`SfnExecutionHistory: '${stateMachineArn}' is not a state machine ARN`);
    this.executionArnPrefix = `${match[1]}:execution:${match[2]}:`;
  }

  executionArn(name: string): string {
    return `${this.executionArnPrefix}${name}`;
  }

  /** undefined when no such execution exists (never started, or gone from the history). */
  async describe(name: string): Promise<ExecutionSummary | undefined> {
    try {
      const result = await this.client.send(
        new DescribeExecutionCommand({ executionArn: this.executionArn(name) }),
      );
      return {
        status: result.status ?? 'UNKNOWN',
        ...(result.startDate && { startDate: result.startDate.toISOString() }),
        ...(result.stopDate && { stopDate: result.stopDate.toISOString() }),
      };
    } catch (error) {
      if (hasErrorName(error, 'ExecutionDoesNotExist')) return undefined;
      throw error;
    }
  }
}
