/**
 * The HTTP side of the operator routes that read one order by its id (inspect, and the workflow
 * graph's read): a caller identity or 403, a valid order id or 400 naming what is wrong, an unknown
 * order 404, an unexpected failure 500 in words. One home, so the two reads answer alike and cannot
 * come to check in a different order; each handler keeps its own dependencies and domain function.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { apiRequestScope, errorResponse, jsonResponse, unexpectedErrorResponse } from '../../shared/http';
import { annotateTrace, instrumentedHandler, type Observability } from '../../shared/observability';
import { OperatorRoute } from '../contracts';
import { parseOrderIdParameter } from '../domain/validation';
import { operatorOf } from './operator-identity';

/**
 * @param read the route's answer for the order, undefined when the order is unknown
 * @param failure what the 500 says went wrong ("Inspecting the order failed unexpectedly")
 */
export function operatorOrderReadHandler<Body>(
  observability: Pick<Observability, 'logger' | 'metrics' | 'tracer'>,
  read: (orderId: string) => Promise<Body | undefined>,
  failure: string,
): (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult> {
  const { tracer } = observability;
  return instrumentedHandler(observability, async (event, context) => {
    const scope = apiRequestScope(event, context, observability);
    const { echoHeaders } = scope;
    try {
      if (operatorOf(event) === undefined) {
        return errorResponse(403, 'No caller identity', undefined, echoHeaders);
      }
      const parsed = parseOrderIdParameter(event.pathParameters?.[OperatorRoute.orderPathParameter]);
      if (!parsed.ok) return errorResponse(400, parsed.message, parsed.errors, echoHeaders);
      annotateTrace(tracer, { orderId: parsed.orderId });
      const body = await read(parsed.orderId);
      if (body === undefined) {
        return errorResponse(404, `Order '${parsed.orderId}' not found`, undefined, echoHeaders);
      }
      return jsonResponse(200, body, echoHeaders);
    } catch (error) {
      return unexpectedErrorResponse(scope, failure, error);
    }
  });
}
