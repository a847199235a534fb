/**
 * The fake remote services behind one Lambda function URL (payload format 2.0): the request path
 * picks the service (inventory, payment or shipping). Scenarios and the HTTP contract are
 * documented in domain/remote-scenarios.ts; this file only wires them to the ledger.
 */
import { randomUUID } from 'node:crypto';
import type { LambdaFunctionURLEvent, LambdaFunctionURLResult } from 'aws-lambda';
import {
  CORRELATION_ID_HEADER,
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENCY_KEY_PATTERN,
  type RemoteOperationRequest,
  RemoteOperationRequestSchema,
  type ServiceName,
} from '../../scheduler-agent-supervisor/contracts';
import { createDynamoDbClient } from '../../shared/aws-clients';
import { sleep } from '../../shared/clock';
import { requireEnv } from '../../shared/env';
import { errorResponse, jsonResponse } from '../../shared/http';
import { annotateTrace, createObservability, instrumentedHandler } from '../../shared/observability';
import { jsonParser } from '../../shared/parse';
import { DynamoDbLedger, type LedgerPort } from '../adapters/ledger';
import { FakesEnvKey } from '../contracts';
import {
  decideAfterEffect,
  decideBeforeEffect,
  scenarioFlags,
  serviceForPath,
} from '../domain/remote-scenarios';

function parseStallMillis(value: string): number {
  const millis = Number(value);
  if (!Number.isInteger(millis) || millis < 0) {
    throw new Error(
      `${FakesEnvKey.StallMillis} must be a non-negative integer of milliseconds, got '${value}'`,
    );
  }
  return millis;
}

const observability = createObservability();
const { logger, tracer } = observability;
const stallMillis = parseStallMillis(requireEnv(FakesEnvKey.StallMillis));
const ledger: LedgerPort = new DynamoDbLedger(
  createDynamoDbClient(tracer),
  requireEnv(FakesEnvKey.LedgerTableName),
);

// Paths under `body.` so they read apart from the header problems reported the same way.
const parseRequestBody = jsonParser(RemoteOperationRequestSchema, { prefix: ['body'] });

type Validated =
  | {
      readonly ok: true;
      readonly service: ServiceName;
      readonly idempotencyKey: string;
      readonly body: RemoteOperationRequest;
    }
  | { readonly ok: false; readonly response: LambdaFunctionURLResult };

function validate(event: LambdaFunctionURLEvent): Validated {
  const service = serviceForPath(event.rawPath);
  if (!service) {
    return { ok: false, response: jsonResponse(404, { message: `No operation at ${event.rawPath}` }) };
  }
  if (event.requestContext.http.method !== 'POST') {
    return {
      ok: false,
      response: jsonResponse(405, { message: `${event.rawPath} accepts POST only` }, { allow: 'POST' }),
    };
  }
  const idempotencyKey = event.headers[IDEMPOTENCY_KEY_HEADER];
  if (idempotencyKey === undefined || idempotencyKey === '') {
    return {
      ok: false,
      response: errorResponse(400, 'Missing Idempotency-Key header', [
        { path: 'headers.Idempotency-Key', message: 'is required: every call must carry a stable key' },
      ]),
    };
  }
  if (!IDEMPOTENCY_KEY_PATTERN.test(idempotencyKey)) {
    return {
      ok: false,
      response: errorResponse(400, 'Invalid Idempotency-Key header', [
        {
          path: 'headers.Idempotency-Key',
          message: 'must be 1-255 printable ASCII characters without spaces',
        },
      ]),
    };
  }
  const text = event.isBase64Encoded
    ? Buffer.from(event.body ?? '', 'base64').toString('utf8')
    : (event.body ?? '');
  const parsed = parseRequestBody(text);
  if (!parsed.ok) {
    return {
      ok: false,
      response: errorResponse(
        400,
        parsed.problem === 'not-json' ? 'Body is not valid JSON' : 'Invalid request body',
        parsed.errors,
      ),
    };
  }
  return { ok: true, service, idempotencyKey, body: parsed.value };
}

export const handler = instrumentedHandler(observability, serve);

async function serve(event: LambdaFunctionURLEvent): Promise<LambdaFunctionURLResult> {
  const validated = validate(event);
  if (!validated.ok) return validated.response;
  const { service, idempotencyKey, body } = validated;
  const correlationId = event.headers[CORRELATION_ID_HEADER];
  annotateTrace(tracer, { orderId: body.orderId, correlationId });
  const log = logger.createChild({
    persistentKeys: { remoteService: service, idempotencyKey, orderId: body.orderId, correlationId },
  });

  const flags = scenarioFlags(service, body.items);
  const callNumber = flags.flaky ? await ledger.countCall(service, idempotencyKey) : 0;
  const before = decideBeforeEffect(flags, callNumber);
  if (before.kind !== 'proceed') {
    log.info('Call refused by scenario', { status: before.status, reason: before.message });
    return jsonResponse(before.status, { message: before.message });
  }

  const effect = await ledger.recordEffectOnce(service, idempotencyKey, {
    confirmationId: `${service}-${randomUUID()}`,
  });
  const after = decideAfterEffect(flags, effect.createdNow);
  switch (after.kind) {
    case 'created':
      log.info('Effect recorded', { confirmationId: effect.result.confirmationId });
      return jsonResponse(after.status, { ...effect.result });
    case 'replayed':
      log.info('Replayed recorded effect', { confirmationId: effect.result.confirmationId });
      return jsonResponse(after.status, { ...effect.result }, { 'idempotent-replayed': 'true' });
    case 'stall-then-fail':
      log.info('Effect recorded; withholding the answer (STALL-ONCE)', { stallMillis });
      await sleep(stallMillis);
      return jsonResponse(after.status, { message: `gateway timeout after ${stallMillis} ms (STALL-ONCE)` });
  }
}
