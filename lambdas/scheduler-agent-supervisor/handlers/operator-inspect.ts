/** GET /operator/orders/{orderId}: record, steps, compensation log, attempts, alerts, operator log. */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { createDocumentClient } from '../../shared/aws-clients/dynamodb';
import { createSfnClient } from '../../shared/aws-clients/sfn';
import { requireEnv } from '../../shared/env';
import { apiRequestScope, errorResponse, jsonResponse, unexpectedErrorResponse } from '../../shared/http';
import { annotateTrace, createObservability, instrumentedHandler } from '../../shared/observability';
import { DynamoAlertArchive } from '../adapters/alert-archive';
import { SfnExecutionHistory } from '../adapters/execution-history';
import { operatorOf } from '../adapters/operator-identity';
import { DynamoOperatorStore } from '../adapters/operator-store';
import { readWorkflowStateMachines } from '../adapters/runtime-config';
import { EnvKey, OperatorRoute } from '../contracts';
import { type InspectDependencies, inspectOrder } from '../domain/operator';
import { parseOrderIdParameter } from '../domain/validation';

const observability = createObservability();
const { tracer } = observability;
const documentClient = createDocumentClient(tracer);
const dependencies: InspectDependencies = {
  records: new DynamoOperatorStore(documentClient, requireEnv(EnvKey.StateTableName)),
  executions: new SfnExecutionHistory(createSfnClient(tracer), readWorkflowStateMachines()),
  alerts: new DynamoAlertArchive(documentClient, requireEnv(EnvKey.AlertArchiveTableName)),
};

export const handler = instrumentedHandler(
  observability,
  async (event: APIGatewayProxyEvent, context): Promise<APIGatewayProxyResult> => {
    const scope = apiRequestScope(event, context, observability);
    const { echoHeaders } = scope;
    try {
      if (operatorOf(event) === undefined) {
        return errorResponse(403, 'No caller identity', undefined, echoHeaders);
      }
      const parsed = parseOrderIdParameter(event.pathParameters?.[OperatorRoute.orderPathParameter]);
      if (!parsed.ok) return errorResponse(400, parsed.message, parsed.errors, echoHeaders);
      annotateTrace(tracer, { orderId: parsed.orderId });
      const detail = await inspectOrder(parsed.orderId, dependencies);
      if (detail === undefined) {
        return errorResponse(404, `Order '${parsed.orderId}' not found`, undefined, echoHeaders);
      }
      return jsonResponse(200, detail, echoHeaders);
    } catch (error) {
      return unexpectedErrorResponse(scope, 'Inspecting the order failed unexpectedly', error);
    }
  },
);
