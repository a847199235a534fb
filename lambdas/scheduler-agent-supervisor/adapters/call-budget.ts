/**
 * The retry budget's counter in the state record (DESIGN.md, "Retry budget"): each remote call is
 * reserved with one conditional UpdateItem before it is made,
 *
 *   ADD CallsMade.<operation> :one
 *   IF the record exists AND (no call reserved yet for the operation
 *                             OR CallsMade.<operation> < RetryBudget
 *                             OR (no RetryBudget: a schema-2 record AND CallsMade.<operation> < the deployment's budget))
 *
 * written here once. It is not a transition of STATE_TRANSITIONS: those are fenced on LockedBy and
 * SET only, and a reservation must never be fenced (a stale attempt's call still reaches the
 * dependency and must be counted) and is an atomic ADD. It touches neither UpdatedAt (the operator's
 * optimistic version) nor the lock, so it never makes another writer's transition lose.
 */
import { type DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { isConditionalCheckFailed } from '../../shared/dynamodb-errors';
import { hasErrorName } from '../../shared/errors';
import { StateAttr } from '../contracts';
import type { CallBudgetPort, CallReservation } from '../domain/agent';

const NAMES = {
  '#orderId': StateAttr.OrderId,
  '#calls': StateAttr.CallsMade,
  '#budget': StateAttr.RetryBudget,
} as const;

/** The reservation's expressions; `#op` names the operation. */
export const RESERVE_CALL = {
  updateExpression: 'ADD #calls.#op :one',
  conditionExpression:
    'attribute_exists(#orderId) AND (attribute_not_exists(#calls.#op) OR #calls.#op < #budget OR (attribute_not_exists(#budget) AND #calls.#op < :deploymentBudget))',
} as const;

export class DynamoCallBudget implements CallBudgetPort {
  /**
   * @param deploymentBudget the deployment's budget (RETRY_BUDGET): what a schema-2 record, created
   *   before records carried their own, is held to.
   */
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly deploymentBudget: number,
  ) {
    if (!tableName) throw new Error('DynamoCallBudget: tableName is required');
  }

  async reserve(call: { readonly orderId: string; readonly operation: string }): Promise<CallReservation> {
    try {
      await this.add(call);
      return { kind: 'reserved' };
    } catch (error) {
      if (isConditionalCheckFailed(error)) return this.refusal(call);
      if (!isMissingMap(error)) throw error;
    }
    // A schema-2 record has no CallsMade map yet, and DynamoDB cannot ADD inside a map that does not
    // exist (nor create it in the same update: the paths would overlap). Create it empty, once,
    // then reserve again.
    await this.createMap(call.orderId);
    try {
      await this.add(call);
      return { kind: 'reserved' };
    } catch (error) {
      if (isConditionalCheckFailed(error)) return this.refusal(call);
      throw error;
    }
  }

  private async add(call: { readonly orderId: string; readonly operation: string }): Promise<void> {
    await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: { [StateAttr.OrderId]: call.orderId },
        UpdateExpression: RESERVE_CALL.updateExpression,
        ConditionExpression: RESERVE_CALL.conditionExpression,
        ExpressionAttributeNames: { ...NAMES, '#op': call.operation },
        ExpressionAttributeValues: { ':one': 1, ':deploymentBudget': this.deploymentBudget },
      }),
    );
  }

  private async createMap(orderId: string): Promise<void> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { [StateAttr.OrderId]: orderId },
          UpdateExpression: 'SET #calls = :empty',
          ConditionExpression: 'attribute_exists(#orderId) AND attribute_not_exists(#calls)',
          ExpressionAttributeNames: { '#orderId': StateAttr.OrderId, '#calls': StateAttr.CallsMade },
          ExpressionAttributeValues: { ':empty': {} },
        }),
      );
    } catch (error) {
      // Another delivery created it first (or the record is gone: the reservation then says so).
      if (!isConditionalCheckFailed(error)) throw error;
    }
  }

  /** Why a reservation was refused: the budget is spent, or (never in practice) there is no record. */
  private async refusal(call: {
    readonly orderId: string;
    readonly operation: string;
  }): Promise<CallReservation> {
    const { Item: item } = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: { [StateAttr.OrderId]: call.orderId },
        ConsistentRead: true,
        ProjectionExpression: '#orderId, #budget, #calls.#op',
        ExpressionAttributeNames: { ...NAMES, '#op': call.operation },
      }),
    );
    if (item === undefined) {
      throw new Error(`No state record '${call.orderId}' to reserve a call of ${call.operation} in`);
    }
    const budget = item[StateAttr.RetryBudget];
    const made = (item[StateAttr.CallsMade] as Record<string, unknown> | undefined)?.[call.operation];
    return {
      kind: 'exhausted',
      budget: typeof budget === 'number' ? budget : this.deploymentBudget,
      callsMade: typeof made === 'number' ? made : 0,
    };
  }
}

/** DynamoDB's answer to an ADD inside a map attribute that does not exist. */
function isMissingMap(error: unknown): boolean {
  return (
    hasErrorName(error, 'ValidationException') &&
    error instanceof Error &&
    error.message.includes('document path provided in the update expression is invalid')
  );
}
