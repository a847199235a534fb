/**
 * POST /deliveries: 202 new, 200 identical resubmission (current status), 409 conflicting
 * resubmission naming the differing fields, 409 an id another requester holds (naming nothing of
 * it), 400 naming each bad field (a drop-off out of range and packages too heavy included), 413
 * too large, 403 an API key of no registered requester; nothing is stored unless accepted. Composition and HTTP mapping only (rules: domain/ingestion.ts).
 */
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { createDocumentClient } from '../../shared/aws-clients/dynamodb';
import { requireEnv } from '../../shared/env';
import { describeError } from '../../shared/errors';
import { CORRELATION_ID_HEADER, correlationIdOf, errorResponse, jsonResponse } from '../../shared/http';
import { annotateTrace, createObservability, instrumentedHandler } from '../../shared/observability';
import { registeredCaller } from '../../shared/registered-caller';
import { DeliveryRecords } from '../adapters/delivery-records';
import { readRequesterRegistry } from '../adapters/requester-registry';
import { DynamoServiceStore } from '../adapters/service-store';
import { readServiceSettings } from '../adapters/settings';
import {
  ChoreographyEnvKey,
  DeliveryMetric,
  deliveryIdUnavailable,
  SubmitDeliverySettingsSchema,
  UNREGISTERED_REQUESTER,
} from '../contracts';
import { parseDeliveryRequestBody, statusEntered, toDeliveryStatusBody } from '../domain/ingestion';

const observability = createObservability<DeliveryMetric>();
const { logger, tracer, count, countBy } = observability;
const settings = readServiceSettings(SubmitDeliverySettingsSchema);
// Submissions write no processed-message markers, so the store's marker TTL (0) is never used.
const records = new DeliveryRecords(
  new DynamoServiceStore(createDocumentClient(tracer), requireEnv(ChoreographyEnvKey.TableName), 0),
);
const requesters = readRequesterRegistry();

export const handler = instrumentedHandler(
  observability,
  async (event: APIGatewayProxyEvent, context: Context): Promise<APIGatewayProxyResult> => {
    const correlationId = correlationIdOf(event, randomUUID());
    const echo = { [CORRELATION_ID_HEADER]: correlationId };
    const log = logger.createChild({ persistentKeys: { correlationId } });
    log.addContext(context);
    annotateTrace(tracer, { correlationId });
    try {
      const known = registeredCaller(
        requesters,
        event,
        { log, echoHeaders: echo, count },
        UNREGISTERED_REQUESTER,
      );
      if ('refused' in known) return known.refused;
      const requester = known.caller;
      log.appendKeys({ requesterId: requester.requesterId });
      const now = new Date();
      const parsed = parseDeliveryRequestBody(event.body, event.isBase64Encoded === true, now, settings);
      if (!parsed.ok) {
        count(DeliveryMetric.DeliveriesRejected);
        log.info('Delivery rejected: invalid request', { errors: parsed.errors });
        return errorResponse(parsed.statusCode, parsed.message, parsed.errors, echo);
      }
      const { deliveryId } = parsed.request;
      log.appendKeys({ deliveryId });
      annotateTrace(tracer, { deliveryId });
      const outcome = await records.submit(parsed.request, correlationId, now, requester.requesterId);
      switch (outcome.kind) {
        case 'accepted': {
          count(DeliveryMetric.DeliveriesAccepted);
          const entered = statusEntered(outcome.record.status);
          countBy(entered.metric, entered.dimension);
          log.info('Delivery accepted');
          return jsonResponse(202, toDeliveryStatusBody(outcome.record), echo);
        }
        case 'identical':
          count(DeliveryMetric.DeliveriesResubmitted);
          return jsonResponse(200, toDeliveryStatusBody(outcome.record), echo);
        case 'conflict':
          count(DeliveryMetric.DeliveryConflicts);
          log.warn('Conflicting resubmission refused', { fields: outcome.fields });
          return errorResponse(
            409,
            `Delivery '${deliveryId}' already exists with different data; the request was not applied`,
            outcome.fields.map((path) => ({ path, message: 'differs from the accepted delivery' })),
            echo,
          );
        case 'unavailable': {
          count(DeliveryMetric.DeliveryConflicts);
          log.warn('Submission of a deliveryId another requester holds; refused');
          const unavailable = deliveryIdUnavailable(deliveryId);
          return errorResponse(409, unavailable.message, unavailable.errors, echo);
        }
      }
    } catch (error) {
      log.error('Delivery submission failed unexpectedly', { error: describeError(error) });
      return jsonResponse(500, { message: 'Internal error', correlationId }, echo);
    }
  },
);
