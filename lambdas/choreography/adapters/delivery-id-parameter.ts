import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { errorResponse } from '../../shared/http';
import { DELIVERY_ID_PATTERN } from '../contracts';

/**
 * A route's `{deliveryId}` path parameter, or the 400 answer naming what is wrong with it: the
 * client's status route and the operator's trail route refuse a bad id in the same words.
 */
export function deliveryIdParameter(
  event: APIGatewayProxyEvent,
  parameter: string,
  echoHeaders: Record<string, string>,
): { readonly deliveryId: string } | { readonly refused: APIGatewayProxyResult } {
  const deliveryId = event.pathParameters?.[parameter] ?? '';
  if (DELIVERY_ID_PATTERN.test(deliveryId)) return { deliveryId };
  return {
    refused: errorResponse(
      400,
      'deliveryId is not valid',
      [{ path: parameter, message: 'must be 1-64 characters of A-Z a-z 0-9 _ -' }],
      echoHeaders,
    ),
  };
}
