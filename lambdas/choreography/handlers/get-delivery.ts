/** GET /deliveries/{deliveryId}: the delivery's status and history from ingestion's read model. */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { createDocumentClient } from '../../shared/aws-clients/dynamodb';
import { requireEnv } from '../../shared/env';
import { apiRequestScope, errorResponse, jsonResponse, unexpectedErrorResponse } from '../../shared/http';
import { annotateTrace, createObservability, instrumentedHandler } from '../../shared/observability';
import { DeliveryRecords } from '../adapters/delivery-records';
import { DynamoServiceStore } from '../adapters/service-store';
import { ChoreographyEnvKey, DELIVERY_ID_PATTERN, DeliveryApiRoute } from '../contracts';
import { toDeliveryStatusBody } from '../domain/ingestion';

const observability = createObservability();
const { tracer } = observability;
// Reads only: the store's marker TTL is never used.
const records = new DeliveryRecords(
  new DynamoServiceStore(createDocumentClient(tracer), requireEnv(ChoreographyEnvKey.TableName), 0),
);

export const handler = instrumentedHandler(
  observability,
  async (event: APIGatewayProxyEvent, context): Promise<APIGatewayProxyResult> => {
    const scope = apiRequestScope(event, context, observability);
    const { echoHeaders } = scope;
    try {
      const deliveryId = event.pathParameters?.[DeliveryApiRoute.DeliveryIdParameter] ?? '';
      if (!DELIVERY_ID_PATTERN.test(deliveryId)) {
        return errorResponse(
          400,
          'deliveryId is not valid',
          [
            {
              path: DeliveryApiRoute.DeliveryIdParameter,
              message: 'must be 1-64 characters of A-Z a-z 0-9 _ -',
            },
          ],
          echoHeaders,
        );
      }
      annotateTrace(tracer, { deliveryId });
      const record = await records.get(deliveryId);
      if (!record) return errorResponse(404, `Delivery '${deliveryId}' not found`, undefined, echoHeaders);
      return jsonResponse(200, toDeliveryStatusBody(record), echoHeaders);
    } catch (error) {
      return unexpectedErrorResponse(scope, 'Reading delivery status failed unexpectedly', error);
    }
  },
);
