import { DescribeExecutionCommand, type SFNClient } from '@aws-sdk/client-sfn';
import { hasErrorName } from '../../shared/errors';
import type { ExecutionHistory, ExecutionSummary } from '../domain/ports';

/**
 * Reads the scheduler's executions by name (`<orderId>--attempt-<n>`). Needs only
 * states:DescribeExecution on the state machine's executions.
 */
export class SfnExecutionHistory implements ExecutionHistory {
  private readonly executionArnPrefixes = new Map<number, string>();

  /** @param stateMachines the state machine of each live workflow version */
  constructor(
    private readonly client: SFNClient,
    stateMachines: ReadonlyMap<number, string>,
  ) {
    for (const [version, stateMachineArn] of stateMachines) {
      // arn:<partition>:states:<region>:<account>:stateMachine:<name> -> ...:execution:<name>:
      const match = /^(arn:[^:]+:states:[^:]*:[^:]*):stateMachine:([^:]+)$/.exec(stateMachineArn);
      if (!match) throw new Error(`SfnExecutionHistory: '${stateMachineArn}' is not a state machine ARN`);
      this.executionArnPrefixes.set(version, `${match[1]}:execution:${match[2]}:`);
    }
  }

  /** undefined when the workflow version has no state machine here. */
  executionArn(name: string, workflowVersion: number): string | undefined {
    const prefix = this.executionArnPrefixes.get(workflowVersion);
    return prefix === undefined ? undefined : `${prefix}${name}`;
  }

  /** undefined when no such execution exists (never started, gone from the history, version not live). */
  async describe(name: string, workflowVersion: number): Promise<ExecutionSummary | undefined> {
    const executionArn = this.executionArn(name, workflowVersion);
    if (executionArn === undefined) return undefined;
    try {
      const result = await this.client.send(new DescribeExecutionCommand({ executionArn }));
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
