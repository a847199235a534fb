/**
 * GET /operator/deliveries?status: the deliveries of ingestion's read model, newest first (the
 * operator console's Deliveries tab). AWS_IAM at the gateway: the caller is an operator.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { createDocumentClient } from '../../shared/aws-clients/dynamodb';
import { requireEnv } from '../../shared/env';
import { apiRequestScope, errorResponse, jsonResponse, unexpectedErrorResponse } from '../../shared/http';
import { createObservability, instrumentedHandler } from '../../shared/observability';
import { queryDeliveryRecords } from '../adapters/delivery-trail';
import { ChoreographyEnvKey, DELIVERY_STATUSES, type DeliveryListBody, isDeliveryStatus } from '../contracts';
import { deliveryRowsOf } from '../domain/trail';

const observability = createObservability();
const documents = createDocumentClient(observability.tracer);
const tableName = requireEnv(ChoreographyEnvKey.TableName);

export const handler = instrumentedHandler(
  observability,
  async (event: APIGatewayProxyEvent, context): Promise<APIGatewayProxyResult> => {
    const scope = apiRequestScope(event, context, observability);
    const { echoHeaders } = scope;
    try {
      const status = event.queryStringParameters?.status || undefined;
      if (status !== undefined && !isDeliveryStatus(status)) {
        return errorResponse(
          400,
          'status is not valid',
          [{ path: 'status', message: `must be one of ${DELIVERY_STATUSES.join(', ')}` }],
          echoHeaders,
        );
      }
      const items = await queryDeliveryRecords(documents, tableName, status);
      const body: DeliveryListBody = { items: deliveryRowsOf(items, status) };
      return jsonResponse(200, body, echoHeaders);
    } catch (error) {
      return unexpectedErrorResponse(scope, 'Listing deliveries failed unexpectedly', error);
    }
  },
);
