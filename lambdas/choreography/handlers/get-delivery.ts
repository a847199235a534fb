/**
 * GET /deliveries/{deliveryId}: the delivery's status and history from ingestion's read model, to
 * the requester that submitted it only: another requester's delivery is answered 404, exactly as an
 * unknown id. A key of no registered requester: 403.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { createDocumentClient } from '../../shared/aws-clients/dynamodb';
import { requireEnv } from '../../shared/env';
import { apiRequestScope, errorResponse, jsonResponse, unexpectedErrorResponse } from '../../shared/http';
import { annotateTrace, createObservability, instrumentedHandler } from '../../shared/observability';
import { ownedBy } from '../../shared/owned-by';
import { registeredCaller } from '../../shared/registered-caller';
import { deliveryIdParameter } from '../adapters/delivery-id-parameter';
import { DeliveryRecords } from '../adapters/delivery-records';
import { readRequesterRegistry } from '../adapters/requester-registry';
import { DynamoServiceStore } from '../adapters/service-store';
import {
  ChoreographyEnvKey,
  DeliveryApiRoute,
  type DeliveryMetric,
  UNREGISTERED_REQUESTER,
} from '../contracts';
import { toDeliveryStatusBody } from '../domain/ingestion';

const observability = createObservability<DeliveryMetric>();
const { tracer, count } = observability;
// Reads only: the store's marker TTL is never used.
const records = new DeliveryRecords(
  new DynamoServiceStore(createDocumentClient(tracer), requireEnv(ChoreographyEnvKey.TableName), 0),
);
const requesters = readRequesterRegistry();

export const handler = instrumentedHandler(
  observability,
  async (event: APIGatewayProxyEvent, context): Promise<APIGatewayProxyResult> => {
    const scope = apiRequestScope(event, context, observability);
    const { echoHeaders } = scope;
    try {
      const known = registeredCaller(requesters, event, { ...scope, count }, UNREGISTERED_REQUESTER);
      if ('refused' in known) return known.refused;
      const requester = known.caller;
      const parameter = deliveryIdParameter(event, DeliveryApiRoute.DeliveryIdParameter, echoHeaders);
      if ('refused' in parameter) return parameter.refused;
      const { deliveryId } = parameter;
      annotateTrace(tracer, { deliveryId });
      const record = await records.get(deliveryId);
      if (!record || !ownedBy(record.requesterId, requester.requesterId))
        return errorResponse(404, `Delivery '${deliveryId}' not found`, undefined, echoHeaders);
      return jsonResponse(200, toDeliveryStatusBody(record), echoHeaders);
    } catch (error) {
      return unexpectedErrorResponse(scope, 'Reading delivery status failed unexpectedly', error);
    }
  },
);
