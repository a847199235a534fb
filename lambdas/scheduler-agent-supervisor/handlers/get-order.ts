/** GET /orders/{orderId}: the order's current state from the state store (200, 404 or 400). */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { createDocumentClient } from '../../shared/aws-clients';
import { requireEnv } from '../../shared/env';
import { apiRequestScope, errorResponse, jsonResponse, unexpectedErrorResponse } from '../../shared/http';
import { annotateTrace, createObservability, instrumentedHandler } from '../../shared/observability';
import { DynamoStateStore } from '../adapters/state-store';
import { ApiRoute, EnvKey } from '../contracts';
import { toOrderStatusBody } from '../domain/state-record';
import { parseOrderIdParameter } from '../domain/validation';

const observability = createObservability();
const { tracer } = observability;
const states = new DynamoStateStore(createDocumentClient(tracer), requireEnv(EnvKey.StateTableName));

export const handler = instrumentedHandler(
  observability,
  async (event: APIGatewayProxyEvent, context): Promise<APIGatewayProxyResult> => {
    const scope = apiRequestScope(event, context, observability);
    const { echoHeaders } = scope;
    try {
      const parsed = parseOrderIdParameter(event.pathParameters?.[ApiRoute.orderPathParameter]);
      if (!parsed.ok) {
        return errorResponse(400, parsed.message, parsed.errors, echoHeaders);
      }
      annotateTrace(tracer, { orderId: parsed.orderId });
      const record = await states.get(parsed.orderId);
      if (record === undefined) {
        return errorResponse(404, `Order '${parsed.orderId}' not found`, undefined, echoHeaders);
      }
      return jsonResponse(200, toOrderStatusBody(record), echoHeaders);
    } catch (error) {
      return unexpectedErrorResponse(scope, 'Reading order status failed unexpectedly', error);
    }
  },
);
