/** GET /orders/{orderId}: the order's current state from the state store (200, 404 or 400). */
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { createDocumentClient } from '../../shared/aws-clients';
import { requireEnv } from '../../shared/env';
import { describeError } from '../../shared/errors';
import { apiRequestScope, errorResponse, internalErrorResponse, jsonResponse } from '../../shared/http';
import { createLogger } from '../../shared/observability';
import { DynamoStateStore } from '../adapters/state-store';
import { ApiRoute, EnvKey } from '../contracts';
import { toOrderStatusBody } from '../domain/state-record';
import { parseOrderIdParameter } from '../domain/validation';

const logger = createLogger('get-order');
const states = new DynamoStateStore(createDocumentClient(), requireEnv(EnvKey.StateTableName));

export const handler = async (
  event: APIGatewayProxyEvent,
  context: Context,
): Promise<APIGatewayProxyResult> => {
  const { correlationId, log, traced } = apiRequestScope(event, context, logger);
  try {
    const parsed = parseOrderIdParameter(event.pathParameters?.[ApiRoute.orderPathParameter]);
    if (!parsed.ok) {
      return errorResponse(400, parsed.message, parsed.errors, traced);
    }
    const record = await states.get(parsed.orderId);
    if (record === undefined) {
      return errorResponse(404, `Order '${parsed.orderId}' not found`, undefined, traced);
    }
    return jsonResponse(200, toOrderStatusBody(record), traced);
  } catch (error) {
    log.error('Reading order status failed unexpectedly', {
      error: describeError(error),
      stack: (error as Error)?.stack,
    });
    return internalErrorResponse(correlationId);
  }
};
