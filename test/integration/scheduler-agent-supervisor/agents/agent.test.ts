/**
 * The real agent handler, fed SQS-shaped events, calling the real remote service handler over HTTP
 * (function URL double), de-duplicating through Powertools idempotency on DynamoDB Local, and answering
 * a scripted Step Functions endpoint.
 */

import { readLedger } from '../../../../lambdas/fakes/adapters/ledger';
import {
  AgentError,
  EnvKey,
  OrderMetric,
  StateAttr,
  StepAttr,
  StepStatus,
} from '../../../../lambdas/scheduler-agent-supervisor/contracts';
import { PowertoolsEnvKey } from '../../../../lambdas/shared/env';
import {
  type AgentHandler,
  type AgentHarness,
  agentRequest,
  callbacksFor,
  callsMade,
  compensationRequest,
  invoke,
  LEDGER_TABLE,
  ledgerEffect,
  ledgerEffectsFor,
  logMessages,
  metricSum,
  remoteRequestsFor,
  seedStateRecord,
  sfnCallsFor,
  sqsEvent,
  startAgentHarness,
  stateRecordItem,
  TEST_RETRY_BUDGET,
  TEST_TIMINGS,
} from './harness';

const STALL_MILLIS = 2_000;

describe('agent handler (integration)', () => {
  let h: AgentHarness;
  let agent: AgentHandler;

  beforeAll(async () => {
    h = await startAgentHarness({ stallMillis: STALL_MILLIS });
    agent = await h.loadAgent({ step: 'ChargePayment', auth: 'none' });
  });
  afterAll(async () => {
    await h?.stop();
  });
  afterEach(() => {
    h.sfn.respondWith(() => undefined);
  });

  it('calls the remote service once and answers SendTaskSuccess with the AgentResult', async () => {
    const request = agentRequest();
    const mark = h.logs.mark();

    const response = await invoke(agent, sqsEvent([request]));

    expect(response.batchItemFailures).toEqual([]);
    const calls = remoteRequestsFor(h.remote, request.idempotencyKey);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({
      method: 'POST',
      path: '/payments/charges',
      status: 201,
      headers: expect.objectContaining({ 'x-correlation-id': request.correlationId }),
    });
    expect(JSON.parse(calls[0]?.body ?? '')).toEqual({ orderId: request.orderId, ...request.order });
    const confirmationId = await ledgerEffect(h.dynamo, 'payment', request.idempotencyKey);
    expect(confirmationId).toMatch(/^payment-/);
    const answers = callbacksFor(h.sfn, request.taskToken);
    expect(answers.map((c) => c.operation)).toEqual(['SendTaskSuccess']);
    expect(JSON.parse(String(answers[0]?.body.output))).toEqual({
      confirmationId,
      service: 'payment',
      idempotencyKey: request.idempotencyKey,
    });
    const lines = h.logs.since(mark);
    expect(metricSum(lines, OrderMetric.RemoteCalls)).toBe(1);
    expect(lines).toContainEqual(
      expect.objectContaining({ message: 'Step succeeded', correlationId: request.correlationId }),
    );
  });

  it('gives a duplicated delivery and a later attempt one downstream effect, answering every token', async () => {
    const first = agentRequest();
    const event = sqsEvent([first]);

    await invoke(agent, event);
    await invoke(agent, event); // SQS at-least-once: the very same message again
    const nextAttempt = {
      ...first,
      taskToken: 'token-of-attempt-2',
      instanceId: `${first.orderId}--attempt-2`,
      attempt: 2,
    };
    const response = await invoke(agent, sqsEvent([nextAttempt]));

    expect(response.batchItemFailures).toEqual([]);
    expect(remoteRequestsFor(h.remote, first.idempotencyKey)).toHaveLength(1);
    expect(await ledgerEffectsFor(h.dynamo, first.idempotencyKey)).toBe(1);
    const confirmationId = await ledgerEffect(h.dynamo, 'payment', first.idempotencyKey);
    const answered = (token: string) =>
      callbacksFor(h.sfn, token).map((c) => [c.operation, JSON.parse(String(c.body.output)).confirmationId]);
    expect(answered(first.taskToken)).toEqual([
      ['SendTaskSuccess', confirmationId],
      ['SendTaskSuccess', confirmationId],
    ]);
    expect(answered(nextAttempt.taskToken)).toEqual([['SendTaskSuccess', confirmationId]]);
  });

  it('makes the second of two concurrent deliveries of one key wait for the first, and answers both from one call', async () => {
    const winner = agentRequest({ skus: ['FLAKY'] }); // slow enough (two 503s and back-off) to overlap
    const loser = { ...winner, taskToken: `${winner.taskToken}-duplicate` };
    const event = sqsEvent([winner, loser]);

    const response = await invoke(agent, event);

    // Nothing bounces back to SQS: a redelivery would come after the visibility timeout, too late.
    expect(response.batchItemFailures).toEqual([]);
    const confirmationId = await ledgerEffect(h.dynamo, 'payment', winner.idempotencyKey);
    for (const token of [winner.taskToken, loser.taskToken]) {
      const answers = callbacksFor(h.sfn, token);
      expect(answers.map((c) => c.operation)).toEqual(['SendTaskSuccess']);
      expect(JSON.parse(String(answers[0]?.body.output)).confirmationId).toBe(confirmationId);
    }
    expect(remoteRequestsFor(h.remote, winner.idempotencyKey).map((r) => r.status)).toEqual([503, 503, 201]);
  });

  it('rides out a FLAKY service with two retries and records one effect', async () => {
    const request = agentRequest({ skus: ['BOOK', 'FLAKY'] });
    const mark = h.logs.mark();

    const response = await invoke(agent, sqsEvent([request]));

    expect(response.batchItemFailures).toEqual([]);
    expect(remoteRequestsFor(h.remote, request.idempotencyKey).map((r) => r.status)).toEqual([503, 503, 201]);
    expect(callbacksFor(h.sfn, request.taskToken).map((c) => c.operation)).toEqual(['SendTaskSuccess']);
    expect(await ledgerEffectsFor(h.dynamo, request.idempotencyKey)).toBe(1);
    const lines = h.logs.since(mark);
    expect(metricSum(lines, OrderMetric.RemoteCalls)).toBe(3);
    expect(metricSum(lines, OrderMetric.RemoteRetries)).toBe(2);
  });

  it('answers a PERM-FAIL refusal with Agent.PermanentFailure after one call and no effect', async () => {
    const request = agentRequest({ skus: ['PERM-FAIL'] });
    const mark = h.logs.mark();

    const response = await invoke(agent, sqsEvent([request]));

    expect(response.batchItemFailures).toEqual([]);
    expect(remoteRequestsFor(h.remote, request.idempotencyKey).map((r) => r.status)).toEqual([422]);
    const answers = callbacksFor(h.sfn, request.taskToken);
    expect(answers).toEqual([
      {
        operation: 'SendTaskFailure',
        body: expect.objectContaining({
          error: AgentError.Permanent,
          cause: expect.stringContaining('HTTP 422'),
        }),
      },
    ]);
    expect(await ledgerEffect(h.dynamo, 'payment', request.idempotencyKey)).toBeUndefined();
    expect(metricSum(h.logs.since(mark), OrderMetric.PermanentFailures)).toBe(1);
  });

  it('STALL-ONCE past the deadline: no call after the deadline, TransientFailure, then the next attempt gets the recorded effect', async () => {
    const request = agentRequest({ skus: ['STALL-ONCE'], deadlineEpochMillis: Date.now() + 1_000 });
    const mark = h.logs.mark();

    const response = await invoke(agent, sqsEvent([request]));

    expect(response.batchItemFailures).toEqual([]);
    const during = remoteRequestsFor(h.remote, request.idempotencyKey);
    expect(during).toHaveLength(1);
    for (const call of during) expect(call.receivedAt).toBeLessThan(request.deadlineEpochMillis);
    expect(callbacksFor(h.sfn, request.taskToken)).toEqual([
      {
        operation: 'SendTaskFailure',
        body: expect.objectContaining({
          error: AgentError.TransientExhausted,
          cause: expect.stringContaining('deadline'),
        }),
      },
    ]);
    expect(metricSum(h.logs.since(mark), OrderMetric.DeadlineExceeded)).toBe(1);

    await h.remote.settled(); // the stalled call finishes on the server side (504 after the stall)
    const recorded = await ledgerEffect(h.dynamo, 'payment', request.idempotencyKey);
    expect(recorded).toBeDefined();

    const nextAttempt = {
      ...request,
      taskToken: 'token-stall-attempt-2',
      attempt: 2,
      instanceId: `${request.orderId}--attempt-2`,
      deadlineEpochMillis: Date.now() + 20_000,
      taskEnteredAt: new Date().toISOString(),
    };
    const second = await invoke(agent, sqsEvent([nextAttempt]));

    expect(second.batchItemFailures).toEqual([]);
    expect(remoteRequestsFor(h.remote, request.idempotencyKey).map((r) => r.status)).toEqual([504, 200]);
    const answer = callbacksFor(h.sfn, nextAttempt.taskToken);
    expect(answer.map((c) => c.operation)).toEqual(['SendTaskSuccess']);
    expect(JSON.parse(String(answer[0]?.body.output)).confirmationId).toBe(recorded);
    expect(await ledgerEffectsFor(h.dynamo, request.idempotencyKey)).toBe(1);
  });

  it('heartbeats the task during a call that outlasts heartbeatSeconds/2, and stops afterwards', async () => {
    // heartbeatSeconds 1 -> a beat every 500 ms; the STALL-ONCE call holds for STALL_MILLIS (2 s).
    const request = agentRequest({ skus: ['STALL-ONCE'], heartbeatSeconds: 1 });

    const response = await invoke(agent, sqsEvent([request]));

    expect(response.batchItemFailures).toEqual([]);
    const operations = sfnCallsFor(h.sfn, request.taskToken).map((c) => c.operation);
    // One beat at once (the heartbeat clock started when the request was sent), then every 500 ms.
    expect(operations[0]).toBe('SendTaskHeartbeat');
    expect(operations.filter((op) => op === 'SendTaskHeartbeat').length).toBeGreaterThanOrEqual(3);
    expect(operations.at(-1)).toBe('SendTaskSuccess');
    expect(remoteRequestsFor(h.remote, request.idempotencyKey).map((r) => r.status)).toEqual([504, 200]);
    const beatsAtEnd = operations.length;
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(sfnCallsFor(h.sfn, request.taskToken)).toHaveLength(beatsAtEnd);
  });

  it.each(['TaskTimedOut', 'InvalidToken', 'TaskDoesNotExist'])(
    'drops a late reply (%s): logged, message acknowledged, not retried',
    async (lateError) => {
      const request = agentRequest();
      // The task times out while the remote call runs: heartbeats before were still accepted.
      h.sfn.respondWith((call) =>
        call.body.taskToken === request.taskToken && call.operation !== 'SendTaskHeartbeat'
          ? { error: lateError }
          : undefined,
      );
      const mark = h.logs.mark();

      const response = await invoke(agent, sqsEvent([request]));

      expect(response.batchItemFailures).toEqual([]);
      expect(callbacksFor(h.sfn, request.taskToken).map((c) => c.operation)).toEqual(['SendTaskSuccess']);
      const lines = h.logs.since(mark);
      expect(metricSum(lines, OrderMetric.LateReplies)).toBe(1);
      expect(logMessages(lines)).toContain('Late reply dropped: the task had already timed out or ended');
    },
  );

  it('drops a late failure reply too', async () => {
    const request = agentRequest({ skus: ['PERM-FAIL'] });
    h.sfn.respondWith((call) =>
      call.body.taskToken === request.taskToken ? { error: 'TaskTimedOut' } : undefined,
    );

    const response = await invoke(agent, sqsEvent([request]));

    expect(response.batchItemFailures).toEqual([]);
    expect(callbacksFor(h.sfn, request.taskToken).map((c) => c.operation)).toEqual(['SendTaskFailure']);
  });

  it('fails the record when the callback fails for another reason, and the redelivery reuses the stored result', async () => {
    const request = agentRequest();
    h.sfn.respondWith((call) =>
      call.body.taskToken === request.taskToken ? { error: 'KmsInvalidStateException' } : undefined,
    );
    const event = sqsEvent([request]);

    const first = await invoke(agent, event);

    expect(first.batchItemFailures).toEqual([{ itemIdentifier: event.Records[0]?.messageId }]);
    h.sfn.respondWith(() => undefined);
    const second = await invoke(agent, event);

    expect(second.batchItemFailures).toEqual([]);
    expect(remoteRequestsFor(h.remote, request.idempotencyKey)).toHaveLength(1);
    expect(callbacksFor(h.sfn, request.taskToken).at(-1)?.operation).toBe('SendTaskSuccess');
  });

  it('makes no remote call at all when the deadline has already passed', async () => {
    const request = agentRequest({ deadlineEpochMillis: Date.now() - 1 });
    const mark = h.logs.mark();

    const response = await invoke(agent, sqsEvent([request]));

    expect(response.batchItemFailures).toEqual([]);
    expect(remoteRequestsFor(h.remote, request.idempotencyKey)).toEqual([]);
    expect(callbacksFor(h.sfn, request.taskToken)).toEqual([
      {
        operation: 'SendTaskFailure',
        body: expect.objectContaining({ error: AgentError.TransientExhausted }),
      },
    ]);
    expect(metricSum(h.logs.since(mark), OrderMetric.DeadlineExceeded)).toBe(1);
  });

  it('after the deadline still reports a result recorded earlier (no new call, so no new effect)', async () => {
    const first = agentRequest();
    await invoke(agent, sqsEvent([first]));
    const recorded = await ledgerEffect(h.dynamo, 'payment', first.idempotencyKey);
    const lateAttempt = { ...first, taskToken: 'token-late-attempt', deadlineEpochMillis: Date.now() - 1 };

    const response = await invoke(agent, sqsEvent([lateAttempt]));

    expect(response.batchItemFailures).toEqual([]);
    expect(remoteRequestsFor(h.remote, first.idempotencyKey)).toHaveLength(1);
    const answer = callbacksFor(h.sfn, lateAttempt.taskToken);
    expect(answer.map((c) => c.operation)).toEqual(['SendTaskSuccess']);
    expect(JSON.parse(String(answer[0]?.body.output)).confirmationId).toBe(recorded);
  });

  it('makes no remote call when the task timeout has passed even though the stored deadline has not', async () => {
    const request = agentRequest({
      taskEnteredAt: new Date(Date.now() - 31_000).toISOString(),
      taskTimeoutSeconds: 30,
    });

    await invoke(agent, sqsEvent([request]));

    expect(remoteRequestsFor(h.remote, request.idempotencyKey)).toEqual([]);
    expect(callbacksFor(h.sfn, request.taskToken)[0]?.body.error).toBe(AgentError.TransientExhausted);
  });

  it('fails only the invalid records of a batch while the others succeed', async () => {
    const good = agentRequest();
    const alsoGood = agentRequest();
    const { taskToken: _dropped, ...withoutToken } = agentRequest();
    const misrouted = agentRequest({ step: 'ReserveInventory' });
    const event = sqsEvent([good, 'not json {', JSON.stringify(withoutToken), misrouted, alsoGood]);
    const mark = h.logs.mark();

    const response = await invoke(agent, event);

    expect(response.batchItemFailures.map((f) => f.itemIdentifier).sort()).toEqual(
      [event.Records[1]?.messageId, event.Records[2]?.messageId, event.Records[3]?.messageId].sort(),
    );
    for (const request of [good, alsoGood]) {
      expect(callbacksFor(h.sfn, request.taskToken).map((c) => c.operation)).toEqual(['SendTaskSuccess']);
    }
    expect(remoteRequestsFor(h.remote, misrouted.idempotencyKey)).toEqual([]);
    const rejected = h.logs.since(mark).filter((line) => line.message === 'Rejected agent message');
    expect(rejected.map((line) => JSON.stringify(line.error))).toEqual(
      expect.arrayContaining([
        expect.stringContaining('not JSON'),
        expect.stringContaining('taskToken'),
        expect.stringContaining('misrouted'),
      ]),
    );
  });

  it('treats an unreachable remote service as transient and gives up after maxCallAttempts', async () => {
    const unreachable = await h.loadAgent({
      step: 'ChargePayment',
      auth: 'none',
      endpointUrl: 'http://127.0.0.1:9', // discard port: connection refused
    });
    const request = agentRequest({ maxCallAttempts: 2 });
    const mark = h.logs.mark();

    const response = await invoke(unreachable, sqsEvent([request]));

    expect(response.batchItemFailures).toEqual([]);
    expect(callbacksFor(h.sfn, request.taskToken)).toEqual([
      {
        operation: 'SendTaskFailure',
        body: expect.objectContaining({
          error: AgentError.TransientExhausted,
          cause: expect.stringContaining('all 2 calls failed; last failure: network error'),
        }),
      },
    ]);
    expect(metricSum(h.logs.since(mark), OrderMetric.RemoteCalls)).toBe(2);
  });

  describe('compensations', () => {
    /** The SendTaskSuccess output a token received (throws when it got anything else). */
    function successOutput(taskToken: string): Record<string, unknown> {
      const answers = callbacksFor(h.sfn, taskToken);
      expect(answers.map((c) => c.operation)).toEqual(['SendTaskSuccess']);
      return JSON.parse(String(answers[0]?.body.output)) as Record<string, unknown>;
    }

    async function ledgerOf(orderId: string) {
      const all = await readLedger(h.dynamo, LEDGER_TABLE);
      const mine = <T extends { idempotencyKey: string }>(entries: readonly T[]) =>
        entries.filter((entry) => entry.idempotencyKey.startsWith(`${orderId}:`));
      return { effects: mine(all.effects), undos: mine(all.undos), closedKeys: mine(all.closedKeys) };
    }

    it('undoes a performed step once and answers { confirmationId, service, idempotencyKey, undone: true }', async () => {
      const charge = agentRequest();
      await invoke(agent, sqsEvent([charge]));
      const refund = compensationRequest(charge);
      const mark = h.logs.mark();

      const response = await invoke(agent, sqsEvent([refund]));

      expect(response.batchItemFailures).toEqual([]);
      const calls = remoteRequestsFor(h.remote, refund.idempotencyKey);
      expect(calls.map((c) => [c.path, c.status])).toEqual([['/payments/refunds', 201]]);
      expect(JSON.parse(calls[0]?.body ?? '')).toEqual({
        orderId: charge.orderId,
        undoes: charge.idempotencyKey,
      });
      const ledger = await ledgerOf(charge.orderId);
      expect(successOutput(refund.taskToken)).toEqual({
        confirmationId: ledger.undos[0]?.confirmationId,
        service: 'payment',
        idempotencyKey: `${charge.orderId}:RefundPayment`,
        undone: true,
      });
      expect(ledger.effects).toEqual([
        expect.objectContaining({ idempotencyKey: charge.idempotencyKey, undoneBy: refund.idempotencyKey }),
      ]);
      expect(ledger.undos).toHaveLength(1);
      expect(h.logs.since(mark)).toContainEqual(
        expect.objectContaining({
          message: 'Compensation succeeded',
          undone: true,
          operation: 'RefundPayment',
        }),
      );
    });

    it('undoes once however often the compensation is delivered or retried, answering every token alike', async () => {
      const charge = agentRequest();
      await invoke(agent, sqsEvent([charge]));
      const refund = compensationRequest(charge);
      const event = sqsEvent([refund]);

      await invoke(agent, event);
      await invoke(agent, event); // SQS redelivers the very same message
      const nextAttempt = compensationRequest(charge, {
        taskToken: 'token-of-compensation-attempt-2',
        instanceId: `${charge.orderId}--attempt-2`,
        attempt: 2,
      });
      const response = await invoke(agent, sqsEvent([nextAttempt]));

      expect(response.batchItemFailures).toEqual([]);
      expect(remoteRequestsFor(h.remote, refund.idempotencyKey)).toHaveLength(1);
      const first = successOutput(nextAttempt.taskToken);
      expect(first).toMatchObject({ undone: true });
      expect(callbacksFor(h.sfn, refund.taskToken).map((c) => JSON.parse(String(c.body.output)))).toEqual([
        first,
        first,
      ]);
      expect((await ledgerOf(charge.orderId)).undos).toHaveLength(1);
    });

    it("takes the downstream's recorded answer when an earlier undo call's answer was lost (200 replay)", async () => {
      const charge = agentRequest();
      await invoke(agent, sqsEvent([charge]));
      const refund = compensationRequest(charge);
      // An earlier attempt's call reached the service, but its answer never came back to an agent.
      const lost = await fetch(`${h.remote.url}/payments/refunds`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': refund.idempotencyKey },
        body: JSON.stringify({ orderId: charge.orderId, undoes: charge.idempotencyKey }),
      });
      const recorded = (await lost.json()) as { confirmationId: string };

      await invoke(agent, sqsEvent([refund]));

      expect(remoteRequestsFor(h.remote, refund.idempotencyKey).map((r) => r.status)).toEqual([201, 200]);
      expect(successOutput(refund.taskToken)).toMatchObject({
        confirmationId: recorded.confirmationId,
        undone: true,
      });
      expect((await ledgerOf(charge.orderId)).undos).toHaveLength(1);
    });

    it('answers undone: false for a step never performed, and the late original is then refused for good', async () => {
      const charge = agentRequest();
      const refund = compensationRequest(charge);

      await invoke(agent, sqsEvent([refund]));

      expect(successOutput(refund.taskToken)).toMatchObject({ undone: false, service: 'payment' });
      const late = { ...charge, taskToken: 'token-late-charge' };
      const mark = h.logs.mark();
      const response = await invoke(agent, sqsEvent([late]));

      expect(response.batchItemFailures).toEqual([]);
      expect(remoteRequestsFor(h.remote, charge.idempotencyKey).map((r) => r.status)).toEqual([422]);
      expect(callbacksFor(h.sfn, late.taskToken)).toEqual([
        {
          operation: 'SendTaskFailure',
          body: expect.objectContaining({
            error: AgentError.Permanent,
            cause: expect.stringContaining('compensated'),
          }),
        },
      ]);
      expect(await ledgerOf(charge.orderId)).toMatchObject({
        effects: [],
        closedKeys: [expect.objectContaining({ idempotencyKey: charge.idempotencyKey })],
      });
      expect(metricSum(h.logs.since(mark), OrderMetric.PermanentFailures)).toBe(1);
    });

    it('rides out a transient compensation failure (UNDO-FLAKY) inside one delivery, undoing once', async () => {
      const charge = agentRequest({ skus: ['UNDO-FLAKY'] });
      await invoke(agent, sqsEvent([charge]));
      const refund = compensationRequest(charge);
      const mark = h.logs.mark();

      const response = await invoke(agent, sqsEvent([refund]));

      expect(response.batchItemFailures).toEqual([]);
      expect(remoteRequestsFor(h.remote, refund.idempotencyKey).map((r) => r.status)).toEqual([
        503, 503, 201,
      ]);
      expect(successOutput(refund.taskToken)).toMatchObject({ undone: true });
      const lines = h.logs.since(mark);
      expect(metricSum(lines, OrderMetric.RemoteCalls)).toBe(3);
      expect(metricSum(lines, OrderMetric.RemoteRetries)).toBe(2);
      expect((await ledgerOf(charge.orderId)).undos).toHaveLength(1);
    });

    it('reports a compensation whose calls ran out as Agent.TransientFailure, and the next attempt undoes once', async () => {
      const charge = agentRequest({ skus: ['UNDO-FLAKY'] });
      await invoke(agent, sqsEvent([charge]));
      const refund = compensationRequest(charge, { maxCallAttempts: 2 });

      await invoke(agent, sqsEvent([refund]));

      expect(callbacksFor(h.sfn, refund.taskToken)).toEqual([
        {
          operation: 'SendTaskFailure',
          body: expect.objectContaining({
            error: AgentError.TransientExhausted,
            cause: expect.stringContaining('all 2 calls failed; last failure: HTTP 503'),
          }),
        },
      ]);
      expect((await ledgerOf(charge.orderId)).undos).toEqual([]);
      const nextAttempt = compensationRequest(charge, {
        attempt: 2,
        instanceId: `${charge.orderId}--attempt-2`,
      });
      await invoke(agent, sqsEvent([nextAttempt]));

      expect(successOutput(nextAttempt.taskToken)).toMatchObject({ undone: true });
      expect(remoteRequestsFor(h.remote, refund.idempotencyKey).map((r) => r.status)).toEqual([
        503, 503, 201,
      ]);
    });

    it('reports a refused compensation (UNDO-FAIL) as Agent.PermanentFailure, leaving the effect standing', async () => {
      const charge = agentRequest({ skus: ['UNDO-FAIL'] });
      await invoke(agent, sqsEvent([charge]));
      const refund = compensationRequest(charge);
      const mark = h.logs.mark();

      await invoke(agent, sqsEvent([refund]));

      expect(callbacksFor(h.sfn, refund.taskToken)).toEqual([
        {
          operation: 'SendTaskFailure',
          body: expect.objectContaining({
            error: AgentError.Permanent,
            cause: expect.stringContaining('UNDO-FAIL'),
          }),
        },
      ]);
      expect(remoteRequestsFor(h.remote, refund.idempotencyKey).map((r) => r.status)).toEqual([422]);
      const ledger = await ledgerOf(charge.orderId);
      expect(ledger.undos).toEqual([]);
      expect(ledger.effects[0]?.undoneBy).toBeUndefined();
      expect(h.logs.since(mark)).toContainEqual(
        expect.objectContaining({ message: 'Compensation failed', reason: 'permanent' }),
      );
    });

    it('rejects requests whose operation does not match the step, calling nothing', async () => {
      const charge = agentRequest();
      const refund = compensationRequest(charge);
      const invalid = [
        { ...charge, operation: 'RefundPayment' }, // perform naming the compensation
        { ...refund, operation: 'ChargePayment' }, // compensate naming the step
        { ...refund, operation: 'ReleaseInventory' }, // another step's compensation
        { ...refund, undoes: `${charge.orderId}:ReserveInventory` }, // another step's effect
        { ...refund, idempotencyKey: charge.idempotencyKey }, // the step's own key
      ];
      const event = sqsEvent(invalid);
      const mark = h.logs.mark();

      const response = await invoke(agent, event);

      expect(response.batchItemFailures.map((f) => f.itemIdentifier).sort()).toEqual(
        event.Records.map((r) => r.messageId).sort(),
      );
      expect(remoteRequestsFor(h.remote, charge.idempotencyKey)).toEqual([]);
      expect(remoteRequestsFor(h.remote, refund.idempotencyKey)).toEqual([]);
      expect(callbacksFor(h.sfn, charge.taskToken)).toEqual([]);
      expect(callbacksFor(h.sfn, refund.taskToken)).toEqual([]);
      const rejected = h.logs.since(mark).filter((line) => line.message === 'Rejected agent message');
      expect(rejected).toHaveLength(invalid.length);
    });
  });
  describe('retry budget', () => {
    /** A later delivery (or attempt) of the same request: same key, its own task token. */
    const again = (request: ReturnType<typeof agentRequest>, n: number) => ({
      ...request,
      taskToken: `${request.taskToken}-${n}`,
      deadlineEpochMillis: Date.now() + 20_000,
      taskEnteredAt: new Date().toISOString(),
    });

    it("counts every call in the record, stops at the order's RetryBudget across deliveries, and answers Agent.RetryBudgetExhausted", async () => {
      const request = agentRequest({ skus: ['OUTAGE'] });
      // The lock is another attempt's: a reservation counts calls, it is never fenced on the lock.
      await seedStateRecord(request.orderId, { retryBudget: 5, lockedBy: `${request.orderId}--attempt-9` });
      const mark = h.logs.mark();

      await invoke(agent, sqsEvent([request]));
      const second = again(request, 2);
      await invoke(agent, sqsEvent([second]));
      const third = again(request, 3);
      await invoke(agent, sqsEvent([third]));

      expect(remoteRequestsFor(h.remote, request.idempotencyKey).map((call) => call.status)).toEqual(
        Array(5).fill(503),
      );
      expect(await callsMade(h.dynamo, request.orderId)).toEqual({ ChargePayment: 5 });
      expect(callbacksFor(h.sfn, request.taskToken)[0]?.body.error).toBe(AgentError.TransientExhausted);
      for (const refused of [second, third]) {
        expect(callbacksFor(h.sfn, refused.taskToken)).toEqual([
          {
            operation: 'SendTaskFailure',
            body: expect.objectContaining({
              error: AgentError.RetryBudgetExhausted,
              cause: 'retry budget exhausted: 5 of 5 calls already made for this operation of the order',
            }),
          },
        ]);
      }
      const lines = h.logs.since(mark);
      expect(metricSum(lines, OrderMetric.RemoteCalls)).toBe(5);
      expect(metricSum(lines, OrderMetric.RetryBudgetExhausted)).toBe(2);
    });

    it('holds two deliveries of one request in the same batch to the budget together', async () => {
      const request = agentRequest({ skus: ['OUTAGE'] });
      await seedStateRecord(request.orderId, { retryBudget: 6 });

      await invoke(agent, sqsEvent([request, again(request, 2)]));

      expect(remoteRequestsFor(h.remote, request.idempotencyKey)).toHaveLength(6);
      expect(await callsMade(h.dynamo, request.orderId)).toEqual({ ChargePayment: 6 });
    });

    it("gives a compensation its own count, and holds a schema-2 record to the deployment's budget, creating its CallsMade", async () => {
      const request = agentRequest({ skus: ['OUTAGE'] });
      await seedStateRecord(request.orderId, { schema: 2 });
      await invoke(agent, sqsEvent([request]));
      expect(await callsMade(h.dynamo, request.orderId)).toEqual({ ChargePayment: 4 });

      const nearlySpent = agentRequest({ skus: ['OUTAGE'] });
      await seedStateRecord(nearlySpent.orderId, {
        schema: 2,
        callsMade: { ChargePayment: TEST_RETRY_BUDGET - 1 },
      });
      await invoke(agent, sqsEvent([nearlySpent]));
      expect(remoteRequestsFor(h.remote, nearlySpent.idempotencyKey)).toHaveLength(1);
      expect(callbacksFor(h.sfn, nearlySpent.taskToken)[0]?.body).toMatchObject({
        error: AgentError.RetryBudgetExhausted,
        cause: `retry budget exhausted: ${TEST_RETRY_BUDGET} of ${TEST_RETRY_BUDGET} calls already made for this operation of the order`,
      });
      // The refund has its own count: the spent charge does not stop it.
      const refund = compensationRequest(nearlySpent);
      await invoke(agent, sqsEvent([refund]));
      expect(callbacksFor(h.sfn, refund.taskToken).map((call) => call.operation)).toEqual([
        'SendTaskSuccess',
      ]);
      expect(await callsMade(h.dynamo, nearlySpent.orderId)).toEqual({
        ChargePayment: TEST_RETRY_BUDGET,
        RefundPayment: 1,
      });
    });
  });

  describe('lean versions: the agent marks its step Running in the reservation (AgentRequest.markRunning)', () => {
    const STEPS = ['ReserveInventory', 'ChargePayment', 'ScheduleShipping'];
    const recordOf = (orderId: string) => stateRecordItem(h.dynamo, orderId);

    it('marks the step Running exactly as markStepRunning does, in the write that counts the call', async () => {
      const request = agentRequest({ markRunning: true });
      await seedStateRecord(request.orderId, { lockedBy: request.instanceId, steps: STEPS });
      const before = Date.now();

      await invoke(agent, sqsEvent([request]));

      expect(callbacksFor(h.sfn, request.taskToken).map((call) => call.operation)).toEqual([
        'SendTaskSuccess',
      ]);
      const record = await recordOf(request.orderId);
      const step = record?.[StateAttr.Steps]?.M?.ChargePayment?.M;
      expect(step?.[StepAttr.Status]?.S).toBe(StepStatus.Running);
      const startedAt = Date.parse(step?.[StepAttr.StartedAt]?.S ?? '');
      expect(startedAt).toBeGreaterThanOrEqual(before - 1000);
      expect(record?.[StateAttr.ProgressAt]?.S).toBe(step?.[StepAttr.StartedAt]?.S);
      // A step write leaves UpdatedAt (the sort key of StateIndex and AdmissionIndex) alone: the
      // seeded record has none, and still has none.
      expect(record?.[StateAttr.UpdatedAt]).toBeUndefined();
      expect(record?.[StateAttr.RunningStep]?.S).toBe('ChargePayment');
      expect(record?.[StateAttr.CompleteBy]?.N).toBe(String(request.deadlineEpochMillis));
      // The other steps are untouched, and the call was counted once.
      expect(record?.[StateAttr.Steps]?.M?.ScheduleShipping?.M?.[StepAttr.Status]?.S).toBe(
        StepStatus.NotStarted,
      );
      expect(await callsMade(h.dynamo, request.orderId)).toEqual({ ChargePayment: 1 });
    });

    it('fails when the lock is another attempt: an old attempt cannot mark Running a record re-claimed by a newer one, and calls nothing', async () => {
      const request = agentRequest({ markRunning: true, skus: ['BOOK'] });
      // Attempt 2 re-claimed the order; attempt 1's request arrives late.
      await seedStateRecord(request.orderId, { lockedBy: `${request.orderId}--attempt-2`, steps: STEPS });
      const before = await recordOf(request.orderId);

      await invoke(agent, sqsEvent([request]));

      expect(remoteRequestsFor(h.remote, request.idempotencyKey)).toEqual([]);
      expect(callbacksFor(h.sfn, request.taskToken)).toEqual([
        {
          operation: 'SendTaskFailure',
          body: expect.objectContaining({
            error: AgentError.FencedOut,
            cause: expect.stringContaining(
              `locked by '${request.orderId}--attempt-2', not by '${request.instanceId}'`,
            ),
          }),
        },
      ]);
      expect(await recordOf(request.orderId)).toEqual(before);
    });

    it('fails when nobody holds the lock (a finished or released order), changing nothing', async () => {
      const request = agentRequest({ markRunning: true });
      await seedStateRecord(request.orderId, { steps: STEPS });
      const before = await recordOf(request.orderId);

      await invoke(agent, sqsEvent([request]));

      expect(remoteRequestsFor(h.remote, request.idempotencyKey)).toEqual([]);
      expect(callbacksFor(h.sfn, request.taskToken)[0]?.body.error).toBe(AgentError.FencedOut);
      expect(await recordOf(request.orderId)).toEqual(before);
    });

    it('serves a classic request beside a lean one: without markRunning it only counts the call', async () => {
      const request = agentRequest();
      await seedStateRecord(request.orderId, { lockedBy: request.instanceId, steps: STEPS });

      await invoke(agent, sqsEvent([request]));

      expect(callbacksFor(h.sfn, request.taskToken).map((call) => call.operation)).toEqual([
        'SendTaskSuccess',
      ]);
      const record = await recordOf(request.orderId);
      expect(record?.[StateAttr.Steps]?.M?.ChargePayment?.M?.[StepAttr.Status]?.S).toBe(
        StepStatus.NotStarted,
      );
      expect(record?.[StateAttr.RunningStep]).toBeUndefined();
      expect(await callsMade(h.dynamo, request.orderId)).toEqual({ ChargePayment: 1 });
    });

    it('still holds a lean request to the budget: a spent budget is RetryBudgetExhausted, not FencedOut', async () => {
      const request = agentRequest({ markRunning: true });
      await seedStateRecord(request.orderId, {
        lockedBy: request.instanceId,
        steps: STEPS,
        callsMade: { ChargePayment: TEST_RETRY_BUDGET },
      });

      await invoke(agent, sqsEvent([request]));

      expect(remoteRequestsFor(h.remote, request.idempotencyKey)).toEqual([]);
      expect(callbacksFor(h.sfn, request.taskToken)[0]?.body.error).toBe(AgentError.RetryBudgetExhausted);
      const record = await recordOf(request.orderId);
      expect(record?.[StateAttr.Steps]?.M?.ChargePayment?.M?.[StepAttr.Status]?.S).toBe(
        StepStatus.NotStarted,
      );
    });
  });
});

describe('agent configuration', () => {
  const env = { ...process.env };
  afterEach(() => {
    process.env = { ...env };
  });

  async function loadWith(overrides: Record<string, string | undefined>): Promise<unknown> {
    Object.assign(process.env, {
      [EnvKey.StepName]: 'ChargePayment',
      [EnvKey.RemoteAuth]: 'none',
      [EnvKey.RemoteEndpointUrl]: 'http://127.0.0.1:1',
      [EnvKey.IdempotencyTableName]: 'table',
      [EnvKey.WorkflowTimings]: JSON.stringify(TEST_TIMINGS),
      [EnvKey.StateTableName]: 'state',
      [EnvKey.RetryBudget]: '36',
      // What the platform's function construct sets on every function.
      [PowertoolsEnvKey.ServiceName]: 'agent-config-test',
      [PowertoolsEnvKey.MetricsNamespace]: 'AgentConfigTest',
      [PowertoolsEnvKey.TraceEnabled]: 'false',
    });
    for (const [key, value] of Object.entries(overrides)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
    let loaded: unknown;
    await jest.isolateModulesAsync(async () => {
      loaded = await import('../../../../lambdas/scheduler-agent-supervisor/handlers/agent');
    });
    return loaded;
  }

  it.each([
    [{ [EnvKey.StepName]: undefined }, 'Missing required environment variable STEP_NAME'],
    [{ [EnvKey.StepName]: 'Teleport' }, "Unknown step 'Teleport'"],
    [{ [EnvKey.RemoteAuth]: 'basic' }, "REMOTE_AUTH must be 'iam' or 'none', got 'basic'"],
    [{ [EnvKey.RemoteEndpointUrl]: 'not a url' }, "REMOTE_ENDPOINT_URL 'not a url' is not an absolute URL"],
    [{ [EnvKey.WorkflowTimings]: '{' }, 'WORKFLOW_TIMINGS is not valid JSON'],
    [{ [EnvKey.StateTableName]: undefined }, 'Missing required environment variable STATE_TABLE_NAME'],
    [
      { [EnvKey.RetryBudget]: 'many' },
      "RETRY_BUDGET must be a decimal number of calls per operation, got 'many'",
    ],
    [
      { [EnvKey.RetryBudget]: '0' },
      'RETRY_BUDGET: the retry budget (calls per operation) must be an integer from 1 to 1000, got 0',
    ],
    [
      { [EnvKey.IdempotencyTableName]: undefined },
      'Missing required environment variable IDEMPOTENCY_TABLE_NAME',
    ],
    [
      { [PowertoolsEnvKey.MetricsNamespace]: undefined },
      'Missing required environment variable POWERTOOLS_METRICS_NAMESPACE',
    ],
    [{ [PowertoolsEnvKey.ServiceName]: '' }, 'Missing required environment variable POWERTOOLS_SERVICE_NAME'],
  ])('refuses to start with a bad environment (%o)', async (overrides, message) => {
    await expect(loadWith(overrides)).rejects.toThrow(message);
  });
});
