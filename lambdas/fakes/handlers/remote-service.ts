/**
 * The fake remote services behind one Lambda function URL (payload format 2.0): the request path
 * picks the service (inventory, payment or shipping) and the operation (the step's, or its
 * compensation). Scenarios and the HTTP contract are documented in domain/remote-scenarios.ts; this
 * file only wires them to the ledger.
 */
import { randomUUID } from 'node:crypto';
import type { LambdaFunctionURLEvent, LambdaFunctionURLResult } from 'aws-lambda';
import {
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENCY_KEY_PATTERN,
  type RemoteCompensationRequest,
  RemoteCompensationRequestSchema,
  type RemoteOperationRequest,
  RemoteOperationRequestSchema,
  type ServiceName,
} from '../../scheduler-agent-supervisor/contracts';
import { createDynamoDbClient } from '../../shared/aws-clients/dynamodb';
import { sleep } from '../../shared/clock';
import { requireEnv } from '../../shared/env';
import { CORRELATION_ID_HEADER, errorResponse, headerValue, jsonResponse } from '../../shared/http';
import { annotateTrace, createObservability, instrumentedHandler } from '../../shared/observability';
import { jsonParser } from '../../shared/parse';
import { composeLedger, type LedgerPort } from '../composition/ledger';
import { FakesEnvKey, operationForPath, type RemoteOperation } from '../contracts';
import {
  decideAfterEffect,
  decideAfterUndo,
  decideBeforeEffect,
  decideBeforeUndo,
  type ScenarioFlags,
  scenarioFlags,
} from '../domain/remote-scenarios';

function parseMillis(key: string, value: string): number {
  const millis = Number(value);
  if (!Number.isInteger(millis) || millis < 0) {
    throw new Error(`${key} must be a non-negative integer of milliseconds, got '${value}'`);
  }
  return millis;
}

const observability = createObservability();
const { logger, tracer } = observability;
const stallMillis = parseMillis(FakesEnvKey.StallMillis, requireEnv(FakesEnvKey.StallMillis));
const slowMillis = parseMillis(FakesEnvKey.SlowMillis, requireEnv(FakesEnvKey.SlowMillis));
const ledger: LedgerPort = composeLedger(
  createDynamoDbClient(tracer),
  requireEnv(FakesEnvKey.LedgerTableName),
);

// Paths under `body.` so they read apart from the header problems reported the same way.
const parseOperationBody = jsonParser(RemoteOperationRequestSchema, { prefix: ['body'] });
const parseCompensationBody = jsonParser(RemoteCompensationRequestSchema, { prefix: ['body'] });

/** A well-formed call: the operation at its path, and the body that operation takes. */
type ValidCall =
  | { readonly kind: 'perform'; readonly service: ServiceName; readonly body: RemoteOperationRequest }
  | { readonly kind: 'compensate'; readonly service: ServiceName; readonly body: RemoteCompensationRequest };

type Validated =
  | {
      readonly ok: true;
      readonly call: ValidCall;
      readonly operationName: string;
      readonly idempotencyKey: string;
    }
  | { readonly ok: false; readonly response: LambdaFunctionURLResult };

function validate(event: LambdaFunctionURLEvent): Validated {
  const operation = operationForPath(event.rawPath);
  if (!operation) {
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
  const call = parseBody(operation, text);
  if (!call.ok) return call;
  const operationName = operation.kind === 'compensate' ? operation.compensation : operation.step;
  return { ok: true, call: call.call, operationName, idempotencyKey };
}

function parseBody(
  operation: RemoteOperation,
  text: string,
):
  | { readonly ok: true; readonly call: ValidCall }
  | { readonly ok: false; readonly response: LambdaFunctionURLResult } {
  const invalid = (problem: 'not-json' | 'invalid', errors: Parameters<typeof errorResponse>[2]) => ({
    ok: false as const,
    response: errorResponse(
      400,
      problem === 'not-json' ? 'Body is not valid JSON' : 'Invalid request body',
      errors,
    ),
  });
  if (operation.kind === 'perform') {
    const parsed = parseOperationBody(text);
    if (!parsed.ok) return invalid(parsed.problem, parsed.errors);
    return { ok: true, call: { kind: 'perform', service: operation.service, body: parsed.value } };
  }
  const parsed = parseCompensationBody(text);
  if (!parsed.ok) return invalid(parsed.problem, parsed.errors);
  return { ok: true, call: { kind: 'compensate', service: operation.service, body: parsed.value } };
}

export const handler = instrumentedHandler(observability, serve);

type Log = ReturnType<typeof logger.createChild>;

async function serve(event: LambdaFunctionURLEvent): Promise<LambdaFunctionURLResult> {
  const validated = validate(event);
  if (!validated.ok) return validated.response;
  const { call, operationName, idempotencyKey } = validated;
  const { service, body } = call;
  const correlationId = headerValue(event, CORRELATION_ID_HEADER);
  annotateTrace(tracer, { orderId: body.orderId, correlationId });
  const log = logger.createChild({
    persistentKeys: {
      remoteService: service,
      operation: operationName,
      idempotencyKey,
      orderId: body.orderId,
      correlationId,
    },
  });
  if (call.kind === 'compensate') {
    if (call.body.undoes === idempotencyKey) {
      return errorResponse(400, 'Invalid request body', [
        { path: 'body.undoes', message: "must name another key than the compensation's own Idempotency-Key" },
      ]);
    }
    return compensate(service, idempotencyKey, call.body, log);
  }
  return perform(service, idempotencyKey, call.body, log);
}

async function waitIfSlow(flags: ScenarioFlags, log: Log): Promise<void> {
  if (!flags.slow) return;
  log.info('Holding the call (SLOW)', { slowMillis });
  await sleep(slowMillis);
}

async function perform(
  service: ServiceName,
  idempotencyKey: string,
  body: RemoteOperationRequest,
  log: Log,
): Promise<LambdaFunctionURLResult> {
  const skus = body.items.map((item) => item.sku);
  // Every call is counted (not only FLAKY ones): the ledger's counter is how tests and the chaos
  // checker measure the calls a dependency received per key (the retry budget's invariant).
  const callNumber = await ledger.countCall(service, idempotencyKey);
  const flags = scenarioFlags(service, skus);
  await waitIfSlow(flags, log);
  const outageEnded = flags.outage ? await ledger.outageEnded(service, idempotencyKey) : false;
  const before = decideBeforeEffect(service, flags, callNumber, outageEnded);
  if (before.kind !== 'proceed') {
    log.info('Call refused by scenario', { status: before.status, reason: before.message });
    return jsonResponse(before.status, { message: before.message });
  }

  const effect = await ledger.recordEffectOnce(
    service,
    idempotencyKey,
    { confirmationId: `${service}-${randomUUID()}` },
    skus,
  );
  if (effect.kind === 'compensated') {
    const message = `${idempotencyKey} was compensated (${effect.compensationKey}): an undo is final, the operation is refused`;
    log.info('Call refused: the key was compensated', { compensationKey: effect.compensationKey });
    return jsonResponse(422, { message });
  }
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

async function compensate(
  service: ServiceName,
  compensationKey: string,
  body: RemoteCompensationRequest,
  log: Log,
): Promise<LambdaFunctionURLResult> {
  // The body carries no items: the compensation plays the scenarios of the effect it undoes.
  const callNumber = await ledger.countCall(service, compensationKey);
  const flags = scenarioFlags(service, (await ledger.effectSkus(service, body.undoes)) ?? []);
  await waitIfSlow(flags, log);
  const before = decideBeforeUndo(service, flags, callNumber);
  if (before.kind !== 'proceed') {
    log.info('Compensation refused by scenario', { status: before.status, reason: before.message });
    return jsonResponse(before.status, { message: before.message });
  }

  const undo = await ledger.recordUndoOnce(
    service,
    compensationKey,
    body.undoes,
    `${service}-undo-${randomUUID()}`,
  );
  const after = decideAfterUndo(undo.createdNow);
  const details = {
    confirmationId: undo.result.confirmationId,
    undoes: body.undoes,
    undone: undo.result.undone,
  };
  if (after.kind === 'replayed') {
    log.info('Replayed recorded compensation', details);
    return jsonResponse(after.status, { ...undo.result }, { 'idempotent-replayed': 'true' });
  }
  log.info(undo.result.undone ? 'Effect undone' : 'Nothing to undo; key closed', details);
  return jsonResponse(after.status, { ...undo.result });
}
