/** GET /operator/orders?state=&limit=&cursor=: orders in one state, newest first (StateIndex). */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { createDocumentClient } from '../../shared/aws-clients/dynamodb';
import { requireEnv } from '../../shared/env';
import { apiRequestScope, errorResponse, jsonResponse, unexpectedErrorResponse } from '../../shared/http';
import { createObservability, instrumentedHandler } from '../../shared/observability';
import { operatorOf } from '../adapters/operator-identity';
import { DynamoOperatorStore, InvalidCursorError } from '../adapters/operator-store';
import { EnvKey, type OperatorOrderListBody } from '../contracts';
import { parseOperatorListQuery } from '../domain/operator';

const observability = createObservability();
const { tracer } = observability;
const store = new DynamoOperatorStore(createDocumentClient(tracer), requireEnv(EnvKey.StateTableName));

export const handler = instrumentedHandler(
  observability,
  async (event: APIGatewayProxyEvent, context): Promise<APIGatewayProxyResult> => {
    const scope = apiRequestScope(event, context, observability);
    const { echoHeaders } = scope;
    try {
      const operator = operatorOf(event);
      if (operator === undefined) return errorResponse(403, 'No caller identity', undefined, echoHeaders);
      const parsed = parseOperatorListQuery(event.queryStringParameters);
      if (!parsed.ok) return errorResponse(400, parsed.message, parsed.errors, echoHeaders);
      const { state, limit, cursor } = parsed.query;
      try {
        const page = await store.listByState(state, limit, cursor);
        const body: OperatorOrderListBody = {
          items: page.rows,
          ...(page.nextCursor !== undefined && { nextCursor: page.nextCursor }),
        };
        return jsonResponse(200, body, echoHeaders);
      } catch (error) {
        if (!(error instanceof InvalidCursorError)) throw error;
        return errorResponse(
          400,
          'Query is not valid',
          [{ path: 'cursor', message: error.message }],
          echoHeaders,
        );
      }
    } catch (error) {
      return unexpectedErrorResponse(scope, 'Listing orders failed unexpectedly', error);
    }
  },
);
