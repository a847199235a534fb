/**
 * GET /orders/{orderId}: the order's current state from the state store (200, 404 or 400), for
 * the client that submitted it only: another client's order is answered 404, exactly as a missing
 * one, so a client cannot learn which orders others have. A key of no registered client: 403.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { createDocumentClient } from '../../shared/aws-clients/dynamodb';
import { requireEnv } from '../../shared/env';
import { apiRequestScope, errorResponse, jsonResponse, unexpectedErrorResponse } from '../../shared/http';
import { annotateTrace, createObservability, instrumentedHandler } from '../../shared/observability';
import { ownedBy } from '../../shared/owned-by';
import { registeredCaller } from '../../shared/registered-caller';
import { readClientRegistry } from '../adapters/runtime-config';
import { DynamoStateStore } from '../adapters/state-store';
import { ApiRoute, EnvKey, OrderMetric, UNREGISTERED_CLIENT } from '../contracts';
import { toOrderStatusBody } from '../domain/state-record';
import { parseOrderIdParameter } from '../domain/validation';

const observability = createObservability<OrderMetric>();
const { tracer, count } = observability;
const states = new DynamoStateStore(createDocumentClient(tracer), requireEnv(EnvKey.StateTableName));
const clients = readClientRegistry();

export const handler = instrumentedHandler(
  observability,
  async (event: APIGatewayProxyEvent, context): Promise<APIGatewayProxyResult> => {
    const scope = apiRequestScope(event, context, observability);
    const { echoHeaders } = scope;
    try {
      const known = registeredCaller(clients, event, { ...scope, count }, UNREGISTERED_CLIENT);
      if ('refused' in known) return known.refused;
      const client = known.caller;
      const parsed = parseOrderIdParameter(event.pathParameters?.[ApiRoute.orderPathParameter]);
      if (!parsed.ok) {
        return errorResponse(400, parsed.message, parsed.errors, echoHeaders);
      }
      annotateTrace(tracer, { orderId: parsed.orderId });
      const record = await states.get(parsed.orderId);
      if (record === undefined || !ownedBy(record.clientId, client.clientId)) {
        return errorResponse(404, `Order '${parsed.orderId}' not found`, undefined, echoHeaders);
      }
      return jsonResponse(200, toOrderStatusBody(record), echoHeaders);
    } catch (error) {
      return unexpectedErrorResponse(scope, 'Reading order status failed unexpectedly', error);
    }
  },
);
