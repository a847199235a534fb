/**
 * POST /orders (API Gateway proxy integration). Validates the body, then runs the submission use
 * case and maps its outcome to HTTP: 202 new, 200 identical resubmission, 409 conflict (different
 * data of the client's own order, naming the differing fields, or an orderId another client holds: a refusal that reveals nothing of that order), 429 every admission slot taken (Retry-After, nothing
 * written; the message says when it is the client's own share that is taken), 400 bad input (nothing written), 403 an API key of no registered client, 500
 * unexpected (logged with the correlation id, no internals returned).
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { createDocumentClient } from '../../shared/aws-clients/dynamodb';
import { createSqsClient } from '../../shared/aws-clients/sqs';
import { systemClock } from '../../shared/clock';
import { requireEnv } from '../../shared/env';
import {
  apiRequestScope,
  errorResponse,
  jsonResponse,
  locationOf,
  unexpectedErrorResponse,
} from '../../shared/http';
import { annotateTrace, createObservability, instrumentedHandler } from '../../shared/observability';
import { registeredCaller } from '../../shared/registered-caller';
import { DynamoDrainStatistics, DynamoOrderAcceptance } from '../adapters/admission-store';
import { SqsConflictQueue } from '../adapters/conflict-queue';
import { DynamoOrdersRepository } from '../adapters/orders-repository';
import {
  readAdmissionSettings,
  readClientRegistry,
  readCurrentWorkflowVersion,
  readDueShardCount,
  readRetryBudget,
  readWorkflowTimings,
} from '../adapters/runtime-config';
import { SqsStartQueue } from '../adapters/start-queue';
import { DynamoStateStore } from '../adapters/state-store';
import {
  type AcceptedOrderBody,
  ApiRoute,
  EnvKey,
  OrderMetric,
  ProcessState,
  UNREGISTERED_CLIENT,
} from '../contracts';
import { otherClientRefusal } from '../domain/other-client-refusal';
import { type SubmissionDependencies, submitOrder } from '../domain/submission';
import { parseOrderRequestBody } from '../domain/validation';

const observability = createObservability<OrderMetric>();
const { tracer, count } = observability;
const documentClient = createDocumentClient(tracer);
const sqs = createSqsClient(tracer);

const ordersTable = requireEnv(EnvKey.OrdersTableName);
const stateTable = requireEnv(EnvKey.StateTableName);
const admissionTable = requireEnv(EnvKey.AdmissionTableName);

const dependencies: Omit<SubmissionDependencies, 'log'> = {
  orders: new DynamoOrdersRepository(documentClient, ordersTable),
  states: new DynamoStateStore(documentClient, stateTable),
  acceptance: new DynamoOrderAcceptance(documentClient, { ordersTable, stateTable, admissionTable }),
  drain: new DynamoDrainStatistics(documentClient, admissionTable),
  startQueue: new SqsStartQueue(sqs, requireEnv(EnvKey.StartQueueUrl)),
  conflictQueue: new SqsConflictQueue(sqs, requireEnv(EnvKey.ConflictQueueUrl)),
  clock: systemClock,
  timings: readWorkflowTimings(),
  dueShardCount: readDueShardCount(),
  workflowVersion: readCurrentWorkflowVersion(),
  admission: readAdmissionSettings(),
  retryBudget: readRetryBudget(),
};
const clients = readClientRegistry();

export const handler = instrumentedHandler(
  observability,
  async (event: APIGatewayProxyEvent, context): Promise<APIGatewayProxyResult> => {
    const scope = apiRequestScope(event, context, observability);
    const { correlationId, log, echoHeaders } = scope;
    try {
      const known = registeredCaller(clients, event, { ...scope, count }, UNREGISTERED_CLIENT);
      if ('refused' in known) return known.refused;
      const client = known.caller;
      log.appendKeys({ clientId: client.clientId });
      const parsed = parseOrderRequestBody(event.body, event.isBase64Encoded === true);
      if (!parsed.ok) {
        count(OrderMetric.SubmissionRejected);
        log.info('Order rejected: invalid request', { errors: parsed.errors });
        return errorResponse(400, parsed.message, parsed.errors, echoHeaders);
      }
      const orderId = parsed.request.orderId;
      log.appendKeys({ orderId });
      annotateTrace(tracer, { orderId });
      const outcome = await submitOrder(
        parsed.request,
        { correlationId, rawBody: parsed.rawBody, clientId: client.clientId },
        { ...dependencies, log },
      );
      switch (outcome.kind) {
        case 'accepted': {
          count(OrderMetric.OrdersAccepted);
          if (!outcome.startQueued) {
            count(OrderMetric.StartMessageSendFailures);
          }
          log.info('Order accepted', {
            startQueued: outcome.startQueued,
            admissionShard: outcome.admissionShard,
          });
          const body: AcceptedOrderBody = { orderId, processState: ProcessState.Pending };
          return jsonResponse(202, body, {
            ...echoHeaders,
            Location: locationOf(event, ApiRoute.orders, orderId),
          });
        }
        case 'duplicate':
          count(OrderMetric.OrdersResubmitted);
          log.info('Identical resubmission; returning current status', {
            processState: outcome.status.processState,
          });
          return jsonResponse(200, outcome.status, echoHeaders);
        case 'other-client':
          count(OrderMetric.SubmissionConflicts);
          log.warn('Submission of an orderId another client holds; refused');
          return errorResponse(409, otherClientRefusal(orderId), undefined, echoHeaders);
        case 'conflict':
          count(OrderMetric.SubmissionConflicts);
          log.warn('Conflicting resubmission sent to the conflict queue', {
            storedFingerprint: outcome.storedFingerprint,
            submittedFingerprint: outcome.submittedFingerprint,
            fields: outcome.fields,
          });
          // The submitter's own order: the fields that differ are named (another client's id never
          // gets here: otherClientRefusal).
          return errorResponse(
            409,
            `Order '${orderId}' already exists with different data; the request was not applied`,
            outcome.fields.length === 0
              ? undefined
              : outcome.fields.map((path) => ({ path, message: 'differs from the accepted order' })),
            echoHeaders,
          );
        case 'rejected':
          count(OrderMetric.AdmissionRejected);
          log.info(
            outcome.reason === 'client-share'
              ? "Order refused: the client's share of the admission slots is taken"
              : 'Order refused: every admission slot is taken',
            { retryAfterSeconds: outcome.retryAfterSeconds, reason: outcome.reason },
          );
          return errorResponse(
            429,
            outcome.reason === 'client-share'
              ? `Too many orders in progress for client '${client.clientId}' (its share of the limit); order '${orderId}' was not accepted. Retry after ${outcome.retryAfterSeconds} s`
              : `Too many orders in progress; order '${orderId}' was not accepted. Retry after ${outcome.retryAfterSeconds} s`,
            undefined,
            { ...echoHeaders, 'Retry-After': String(outcome.retryAfterSeconds) },
          );
      }
    } catch (error) {
      return unexpectedErrorResponse(scope, 'Order submission failed unexpectedly', error);
    }
  },
);
