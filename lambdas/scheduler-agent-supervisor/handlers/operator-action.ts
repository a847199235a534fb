/**
 * POST /operator/orders/{orderId}/retry and /cancel: conditional on what the operator saw, logged
 * with who and why (structured log and OperatorLog), counted; 200 applied, 400 bad request,
 * 403 no caller identity, 404 unknown order, 409 StateChanged or NotAllowed, 429 a retry (new
 * work) while every admission slot is taken (Retry-After, nothing written).
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { createDocumentClient } from '../../shared/aws-clients/dynamodb';
import { createSqsClient } from '../../shared/aws-clients/sqs';
import { systemClock } from '../../shared/clock';
import { requireEnv } from '../../shared/env';
import { apiRequestScope, errorResponse, jsonResponse, unexpectedErrorResponse } from '../../shared/http';
import { annotateTrace, createObservability, instrumentedHandler } from '../../shared/observability';
import { DynamoDrainStatistics } from '../adapters/admission-store';
import { operatorOf } from '../adapters/operator-identity';
import { DynamoOperatorStore } from '../adapters/operator-store';
import {
  readAdmissionSettings,
  readDueShardCount,
  readWorkflowStateMachines,
  readWorkflowTimings,
} from '../adapters/runtime-config';
import { SqsStartQueue } from '../adapters/start-queue';
import { EnvKey, OperatorAction, OperatorRoute, OrderMetric } from '../contracts';
import {
  type OperatorActionDependencies,
  parseOperatorActionBody,
  performOperatorAction,
} from '../domain/operator';
import { parseOrderIdParameter } from '../domain/validation';

const observability = createObservability<OrderMetric>();
const { tracer, count, countBy } = observability;

const documentClient = createDocumentClient(tracer);
const admissionTable = requireEnv(EnvKey.AdmissionTableName);

const dependencies: Omit<OperatorActionDependencies, 'log'> = {
  store: new DynamoOperatorStore(documentClient, requireEnv(EnvKey.StateTableName), { admissionTable }),
  startQueue: new SqsStartQueue(createSqsClient(tracer), requireEnv(EnvKey.StartQueueUrl)),
  clock: systemClock,
  timings: readWorkflowTimings(),
  dueShardCount: readDueShardCount(),
  admission: readAdmissionSettings(),
  drain: new DynamoDrainStatistics(documentClient, admissionTable),
  liveWorkflowVersions: [...readWorkflowStateMachines().keys()],
};

/** The action is the last segment of the route's resource (`.../{orderId}/retry`). */
function actionOf(event: APIGatewayProxyEvent): OperatorAction | undefined {
  const last = (event.resource ?? event.path ?? '').split('/').at(-1);
  return Object.values(OperatorAction).find((action) => action === last);
}

export const handler = instrumentedHandler(
  observability,
  async (event: APIGatewayProxyEvent, context): Promise<APIGatewayProxyResult> => {
    const scope = apiRequestScope(event, context, observability);
    const { correlationId, log, echoHeaders } = scope;
    try {
      const by = operatorOf(event);
      if (by === undefined) return errorResponse(403, 'No caller identity', undefined, echoHeaders);
      const action = actionOf(event);
      if (action === undefined) {
        throw new Error(`operator-action is wired to resource '${event.resource}', which names no action`);
      }
      const orderId = parseOrderIdParameter(event.pathParameters?.[OperatorRoute.orderPathParameter]);
      if (!orderId.ok) return errorResponse(400, orderId.message, orderId.errors, echoHeaders);
      const parsed = parseOperatorActionBody(event.body, event.isBase64Encoded === true);
      if (!parsed.ok) {
        log.info('Operator action rejected: invalid request', { action, by, errors: parsed.errors });
        return errorResponse(400, parsed.message, parsed.errors, echoHeaders);
      }
      log.appendKeys({ orderId: orderId.orderId });
      annotateTrace(tracer, { orderId: orderId.orderId });
      const { request } = parsed;
      const seen = { seenState: request.expectedState, seenUpdatedAt: request.expectedUpdatedAt };
      const outcome = await performOperatorAction(
        { orderId: orderId.orderId, action, request, by, correlationId },
        { ...dependencies, log },
      );
      switch (outcome.kind) {
        case 'applied':
          countBy(OrderMetric.OperatorActions, { name: 'action', value: action });
          if (!outcome.startQueued) count(OrderMetric.StartMessageSendFailures);
          log.info('Operator action applied', {
            action,
            by,
            reason: request.reason,
            ...seen,
            newState: outcome.body.processState,
            resetFailureCount: outcome.entry.resetFailureCount,
            startQueued: outcome.startQueued,
            admission: outcome.admission,
          });
          return jsonResponse(200, outcome.body, echoHeaders);
        case 'not-found':
          return errorResponse(404, `Order '${orderId.orderId}' not found`, undefined, echoHeaders);
        case 'refused':
          count(OrderMetric.OperatorActionsRefused);
          log.info('Operator action refused', {
            action,
            by,
            reason: request.reason,
            ...seen,
            refusal: outcome.body.refusal,
            currentState: outcome.body.currentState,
            currentUpdatedAt: outcome.body.currentUpdatedAt,
          });
          return jsonResponse(409, outcome.body, echoHeaders);
        case 'rejected':
          count(OrderMetric.AdmissionRejected);
          log.info('Operator retry refused: every admission slot is taken', {
            action,
            by,
            reason: request.reason,
            ...seen,
            retryAfterSeconds: outcome.retryAfterSeconds,
          });
          return errorResponse(429, outcome.message, undefined, {
            ...echoHeaders,
            'Retry-After': String(outcome.retryAfterSeconds),
          });
        case 'unsupported-version':
          count(OrderMetric.UnsupportedRecordVersions);
          log.error('Operator action refused: the record has a version this deployment does not run', {
            action,
            by,
            error: 'UnsupportedRecordVersion',
            detail: outcome.message,
          });
          return errorResponse(409, outcome.message, undefined, echoHeaders);
      }
    } catch (error) {
      return unexpectedErrorResponse(scope, 'Operator action failed unexpectedly', error);
    }
  },
);
