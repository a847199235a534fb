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
 *
 * Lean workflow versions (AgentRequest.markRunning) are the exception, by request: the same write
 * also applies transition progressStepRunning (markStepRunning as a progress write: ProgressAt, not
 * UpdatedAt, so no StateIndex or AdmissionIndex entry is rewritten; rendered from STATE_TRANSITIONS,
 * its SET clauses and its fenced condition ANDed to the reservation's), so the step becomes Running exactly when its agent
 * has the request, and a stale execution's agent (its lock gone) neither counts nor calls: it has
 * nothing to call for, since its execution can no longer record the result.
 */
import {
  type DynamoDBDocumentClient,
  GetCommand,
  type GetCommandInput,
  UpdateCommand,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import type { Clock } from '../../shared/clock';
import { isConditionalCheckFailed } from '../../shared/dynamodb-errors';
import { hasErrorName } from '../../shared/errors';
import { ProcessState, RESERVE_CALL, StateAttr } from '../contracts';
import type { CallBudget, CallReservation, MarkStepRunning } from '../domain/ports';
import { transitionUpdate } from './state-store';

const NAMES = {
  '#orderId': StateAttr.OrderId,
  '#calls': StateAttr.CallsMade,
  '#budget': StateAttr.RetryBudget,
} as const;

export class DynamoCallBudget implements CallBudget {
  /**
   * @param deploymentBudget the deployment's budget (RETRY_BUDGET): what a schema-2 record, created
   *   before records carried their own, is held to.
   */
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly deploymentBudget: number,
    /** StartedAt and ProgressAt of a step marked Running. */
    private readonly clock: Clock,
  ) {
    if (!tableName) throw new Error('DynamoCallBudget: tableName is required');
  }

  async reserve(call: ReserveCall): Promise<CallReservation> {
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

  private async add(call: ReserveCall): Promise<void> {
    const reservation = {
      UpdateExpression: RESERVE_CALL.updateExpression,
      ConditionExpression: RESERVE_CALL.conditionExpression,
      ExpressionAttributeNames: { ...NAMES, '#op': call.operation },
      ExpressionAttributeValues: { ':one': 1, ':deploymentBudget': this.deploymentBudget },
    };
    await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: { [StateAttr.OrderId]: call.orderId },
        ...(call.markRunning === undefined
          ? reservation
          : withMarkRunning(reservation, call.orderId, call.markRunning, this.clock.now())),
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

  /**
   * Why a reservation was refused: the lock is gone (a markRunning reservation), the budget is
   * spent, or (never in practice) there is no record.
   */
  private async refusal(call: ReserveCall): Promise<CallReservation> {
    const { Item: item } = await this.client.send(new GetCommand(refusalRead(this.tableName, call)));
    if (item === undefined) {
      throw new Error(`No state record '${call.orderId}' to reserve a call of ${call.operation} in`);
    }
    if (call.markRunning !== undefined) {
      const lockedBy = item[StateAttr.LockedBy];
      const state = item[StateAttr.ProcessState];
      // The same clauses progressStepRunning's condition holds (fence, then Processing), read back.
      if (lockedBy !== call.markRunning.instanceId || state !== ProcessState.Processing) {
        return {
          kind: 'fenced',
          detail: `the record is ${String(state)} and locked by ${lockedBy === undefined ? 'nobody' : `'${String(lockedBy)}'`}, not by '${call.markRunning.instanceId}': ${call.markRunning.step} not marked Running, no call made`,
        };
      }
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

type ReserveCall = Parameters<CallBudget['reserve']>[0];

/**
 * The read that tells why a reservation was refused: the budget, the operation's count and, for a
 * lean reservation, the lock and state it was fenced on (the agent's grant names exactly these).
 */
export function refusalRead(
  tableName: string,
  call: Pick<ReserveCall, 'orderId' | 'operation'>,
): GetCommandInput {
  return {
    TableName: tableName,
    Key: { [StateAttr.OrderId]: call.orderId },
    ConsistentRead: true,
    ProjectionExpression: '#orderId, #budget, #calls.#op, #lockedBy, #processState',
    ExpressionAttributeNames: {
      ...NAMES,
      '#op': call.operation,
      '#lockedBy': StateAttr.LockedBy,
      '#processState': StateAttr.ProcessState,
    },
  };
}

type ReservationUpdate = Required<
  Pick<
    UpdateCommandInput,
    'UpdateExpression' | 'ConditionExpression' | 'ExpressionAttributeNames' | 'ExpressionAttributeValues'
  >
>;

/**
 * The reservation and transition progressStepRunning in one UpdateItem: SET clauses and condition from
 * the transitions table (transitionUpdate), the reservation's ADD and condition ANDed to them. The
 * two use disjoint placeholders; a clash would be a bug in one of them, so it throws.
 */
export function withMarkRunning(
  reservation: ReservationUpdate,
  orderId: string,
  mark: MarkStepRunning,
  now: number,
): ReservationUpdate {
  const at = new Date(now).toISOString();
  const running = transitionUpdate(
    'progressStepRunning',
    orderId,
    { instanceId: mark.instanceId, runningStep: mark.step, completeBy: mark.completeBy, now: at },
    { step: mark.step },
  );
  const names = running.ExpressionAttributeNames ?? {};
  const values = running.ExpressionAttributeValues ?? {};
  const clashes = [
    ...Object.keys(names).filter(
      (key) =>
        key in reservation.ExpressionAttributeNames &&
        reservation.ExpressionAttributeNames[key] !== names[key],
    ),
    ...Object.keys(values).filter((key) => key in reservation.ExpressionAttributeValues),
  ];
  if (clashes.length > 0) {
    throw new Error(`Reservation and progressStepRunning share placeholders: ${clashes.join(', ')}`);
  }
  if (
    !running.UpdateExpression?.startsWith('SET ') ||
    /\b(REMOVE|ADD|DELETE)\b/.test(running.UpdateExpression)
  ) {
    throw new Error(
      `progressStepRunning must be SET only to share the reservation's write: ${running.UpdateExpression}`,
    );
  }
  return {
    UpdateExpression: `${running.UpdateExpression} ${reservation.UpdateExpression}`,
    ConditionExpression: `(${running.ConditionExpression}) AND (${reservation.ConditionExpression})`,
    ExpressionAttributeNames: { ...reservation.ExpressionAttributeNames, ...names },
    ExpressionAttributeValues: { ...reservation.ExpressionAttributeValues, ...values },
  };
}

/** DynamoDB's answer to an ADD inside a map attribute that does not exist. */
function isMissingMap(error: unknown): boolean {
  return (
    hasErrorName(error, 'ValidationException') &&
    error instanceof Error &&
    error.message.includes('document path provided in the update expression is invalid')
  );
}
