/**
 * GET /orders/{orderId}: the order's current state from the state store (200, 404 or 400), for
 * the client that submitted it only: another client's order is answered 404, exactly as a missing
 * one, so a client cannot learn which orders others have. A key of no registered client: 403.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { createDocumentClient } from '../../shared/aws-clients/dynamodb';
import { requireEnv } from '../../shared/env';
import { holderOfApiKey } from '../../shared/holder-of-api-key';
import { apiRequestScope, errorResponse, jsonResponse, unexpectedErrorResponse } from '../../shared/http';
import { annotateTrace, createObservability, instrumentedHandler } from '../../shared/observability';
import { readClientRegistry } from '../adapters/runtime-config';
import { DynamoStateStore } from '../adapters/state-store';
import { ApiRoute, EnvKey, OrderMetric } from '../contracts';
import { mayRead } from '../domain/clients';
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
    const { echoHeaders, log } = scope;
    try {
      const client = holderOfApiKey(clients, event.requestContext?.identity?.apiKeyId);
      if (client === undefined) {
        count(OrderMetric.UnknownClientRequests);
        log.warn('Order lookup refused: the API key belongs to no registered client', {
          apiKeyId: event.requestContext?.identity?.apiKeyId ?? null,
        });
        return errorResponse(403, 'This API key is not registered to a client', undefined, echoHeaders);
      }
      const parsed = parseOrderIdParameter(event.pathParameters?.[ApiRoute.orderPathParameter]);
      if (!parsed.ok) {
        return errorResponse(400, parsed.message, parsed.errors, echoHeaders);
      }
      annotateTrace(tracer, { orderId: parsed.orderId });
      const record = await states.get(parsed.orderId);
      if (record === undefined || !mayRead(record, client.clientId)) {
        return errorResponse(404, `Order '${parsed.orderId}' not found`, undefined, echoHeaders);
      }
      return jsonResponse(200, toOrderStatusBody(record), echoHeaders);
    } catch (error) {
      return unexpectedErrorResponse(scope, 'Reading order status failed unexpectedly', error);
    }
  },
);
