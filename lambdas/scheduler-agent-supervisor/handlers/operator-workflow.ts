/** GET /operator/orders/{orderId}/workflow: the latest attempt's definition and the states it entered. */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { createDocumentClient } from '../../shared/aws-clients/dynamodb';
import { createSfnClient } from '../../shared/aws-clients/sfn';
import { requireEnv } from '../../shared/env';
import { apiRequestScope, errorResponse, jsonResponse, unexpectedErrorResponse } from '../../shared/http';
import { annotateTrace, createObservability, instrumentedHandler } from '../../shared/observability';
import { SfnExecutionWorkflows } from '../adapters/execution-workflow';
import { operatorOf } from '../adapters/operator-identity';
import { DynamoOperatorStore } from '../adapters/operator-store';
import { readWorkflowStateMachines } from '../adapters/runtime-config';
import { EnvKey, OperatorRoute } from '../contracts';
import { orderWorkflow, type WorkflowDependencies } from '../domain/operator-workflow';
import { parseOrderIdParameter } from '../domain/validation';

const observability = createObservability();
const { tracer } = observability;
const dependencies: WorkflowDependencies = {
  records: new DynamoOperatorStore(createDocumentClient(tracer), requireEnv(EnvKey.StateTableName)),
  workflows: new SfnExecutionWorkflows(createSfnClient(tracer), readWorkflowStateMachines()),
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
      const body = await orderWorkflow(parsed.orderId, dependencies);
      if (body === undefined) {
        return errorResponse(404, `Order '${parsed.orderId}' not found`, undefined, echoHeaders);
      }
      return jsonResponse(200, body, echoHeaders);
    } catch (error) {
      return unexpectedErrorResponse(scope, "Reading the order's workflow failed unexpectedly", error);
    }
  },
);
