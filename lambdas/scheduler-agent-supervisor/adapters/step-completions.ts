/**
 * The compact shape's step completion (DESIGN.md "Compact shape"): the agent whose call succeeded
 * records its step Completed in the state record with one conditional UpdateItem, rendered from
 * transition completeStep (or completeOrder for the last step) of STATE_TRANSITIONS, so the state
 * machine needs no MarkCompleted (nor MarkProcessed) state. The write is fenced on the request's
 * execution and conditional on the step not being Completed yet; when the condition fails, one consistent read tells a completion already recorded (a duplicate delivery,
 * a redelivered message) from a lost lock (nothing written: the agent answers Agent.FencedOut).
 */
import { type DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Clock } from '../../shared/clock';
import { isConditionalCheckFailed } from '../../shared/dynamodb-errors';
import { StateAttr, StepAttr, StepResultAttr, StepStatus } from '../contracts';
import type { CompletionRecord, StepCompletion, StepCompletions } from '../domain/ports';
import { transitionUpdate } from './state-store';

export class DynamoStepCompletions implements StepCompletions {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    /** CompletedAt and UpdatedAt of the step recorded. */
    private readonly clock: Clock,
  ) {
    if (!tableName) throw new Error('DynamoStepCompletions: tableName is required');
  }

  async record(completion: StepCompletion): Promise<CompletionRecord> {
    try {
      await this.client.send(
        new UpdateCommand({ TableName: this.tableName, ...completionUpdate(completion, this.clock.now()) }),
      );
      return { kind: 'recorded' };
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw error;
    }
    const { Item: item } = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: { [StateAttr.OrderId]: completion.orderId },
        ConsistentRead: true,
        ProjectionExpression: '#orderId, #steps.#step.#status, #lockedBy, #processState',
        ExpressionAttributeNames: {
          '#orderId': StateAttr.OrderId,
          '#steps': StateAttr.Steps,
          '#step': completion.step,
          '#status': StepAttr.Status,
          '#lockedBy': StateAttr.LockedBy,
          '#processState': StateAttr.ProcessState,
        },
      }),
    );
    if (item === undefined) {
      throw new Error(`No state record '${completion.orderId}' to record ${completion.step} Completed in`);
    }
    const steps = item[StateAttr.Steps] as Record<string, Record<string, unknown>> | undefined;
    if (steps?.[completion.step]?.[StepAttr.Status] === StepStatus.Completed) {
      return { kind: 'already-recorded' };
    }
    const lockedBy = item[StateAttr.LockedBy];
    return {
      kind: 'fenced',
      detail: `the record is ${String(item[StateAttr.ProcessState])} and locked by ${lockedBy === undefined ? 'nobody' : `'${String(lockedBy)}'`}, not by '${completion.instanceId}': ${completion.step} not recorded Completed (the effect is kept for the next attempt)`,
    };
  }
}

/** The UpdateItem (all but the table) that records `completion` at `now` (epoch millis). */
export function completionUpdate(completion: StepCompletion, now: number) {
  const common = {
    instanceId: completion.instanceId,
    result: { [StepResultAttr.ConfirmationId]: completion.confirmationId },
    seq: completion.seq,
    compensation: completion.compensation,
    undoes: completion.undoes,
    confirmationId: completion.confirmationId,
    now: new Date(now).toISOString(),
  };
  return completion.after.kind === 'finish-order'
    ? transitionUpdate('completeOrder', completion.orderId, common, { step: completion.step })
    : transitionUpdate(
        'completeStep',
        completion.orderId,
        { ...common, completeBy: completion.after.completeBy },
        { step: completion.step },
      );
}
