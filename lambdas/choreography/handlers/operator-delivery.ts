/**
 * GET /operator/deliveries/{deliveryId}: one delivery's status (ingestion's read model) and its
 * trail across the services' tables, dead letters with their reason codes and remediation
 * decisions included. AWS_IAM at the gateway: the caller is an operator.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { createDocumentClient } from '../../shared/aws-clients/dynamodb';
import { apiRequestScope, errorResponse, jsonResponse, unexpectedErrorResponse } from '../../shared/http';
import { annotateTrace, createObservability, instrumentedHandler } from '../../shared/observability';
import { deliveryIdParameter } from '../adapters/delivery-id-parameter';
import { readDeliveryItems, readDeliveryTables } from '../adapters/delivery-trail';
import { OperatorDeliveryRoute } from '../contracts';
import { deliveryDetailOf } from '../domain/trail';

const observability = createObservability();
const { tracer } = observability;
const documents = createDocumentClient(tracer);
const tables = readDeliveryTables();

export const handler = instrumentedHandler(
  observability,
  async (event: APIGatewayProxyEvent, context): Promise<APIGatewayProxyResult> => {
    const scope = apiRequestScope(event, context, observability);
    const { echoHeaders } = scope;
    try {
      const parameter = deliveryIdParameter(event, OperatorDeliveryRoute.deliveryIdParameter, echoHeaders);
      if ('refused' in parameter) return parameter.refused;
      const { deliveryId } = parameter;
      annotateTrace(tracer, { deliveryId });
      const detail = deliveryDetailOf(deliveryId, await readDeliveryItems(documents, tables, deliveryId));
      if (!detail) {
        return errorResponse(
          404,
          `Delivery '${deliveryId}' is unknown to every service`,
          undefined,
          echoHeaders,
        );
      }
      return jsonResponse(200, detail, echoHeaders);
    } catch (error) {
      return unexpectedErrorResponse(scope, 'Reading the delivery trail failed unexpectedly', error);
    }
  },
);
