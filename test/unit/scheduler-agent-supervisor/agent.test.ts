import {
  AgentError,
  type AgentRequest,
  type AgentResult,
} from '../../../lambdas/scheduler-agent-supervisor/contracts';
import {
  callRemoteOperation,
  callWithRetries,
  classifyOutcome,
  effectiveDeadline,
  handleAgentRequest,
  heartbeatIntervalMillis,
  idempotencyRetentionSeconds,
  perCallTimeoutMillis,
  remoteOperationFor,
  resolveAgentOperation,
} from '../../../lambdas/scheduler-agent-supervisor/domain/agent';
import type { CallResult } from '../../../lambdas/scheduler-agent-supervisor/domain/call-result';
import {
  ConcurrentDeliveryError,
  IdempotencyKeyReusedError,
  InvalidAgentRequestError,
  RemoteCallFailedError,
} from '../../../lambdas/scheduler-agent-supervisor/domain/errors';
import type {
  CallBudget,
  CallbackDelivery,
  CallReservation,
  RemoteOutcome,
  RemoteService,
} from '../../../lambdas/scheduler-agent-supervisor/domain/ports';
import { loadConfig } from '../../../lib/scheduler-agent-supervisor/config';
import { fakeTime as fakeTimeFrom } from '../shared/fake-time';

const backoff = { baseMillis: 100, capMillis: 1_000 };

/** A budget that reserves every call (tests about something else). */
const unlimitedBudget: CallBudget = { reserve: async () => ({ kind: 'reserved' }) };

/** A record's counter: reserves `budget` calls per order and operation, then refuses; keeps what it was asked. */
function countingBudget(budget: number): CallBudget & { readonly asked: string[] } {
  const made = new Map<string, number>();
  const asked: string[] = [];
  return {
    asked,
    async reserve({ orderId, operation }): Promise<CallReservation> {
      const key = `${orderId}:${operation}`;
      asked.push(key);
      const callsMade = made.get(key) ?? 0;
      if (callsMade >= budget) return { kind: 'exhausted', budget, callsMade };
      made.set(key, callsMade + 1);
      return { kind: 'reserved' };
    },
  };
}

/** The clock the tests below start from unless they say otherwise. */
const fakeTime = (start = 1_000_000) => fakeTimeFrom(start);

const ok = (confirmationId = 'c-1'): RemoteOutcome => ({
  kind: 'response',
  status: 201,
  body: { confirmationId },
});
const status = (code: number): RemoteOutcome => ({
  kind: 'response',
  status: code,
  body: { message: `status ${code}` },
});

describe('effectiveDeadline', () => {
  const base = { deadlineEpochMillis: Date.parse('2030-01-01T00:10:00Z'), taskTimeoutSeconds: 60 };

  it('is the task timeout when it comes before the stored step deadline', () => {
    expect(effectiveDeadline({ ...base, taskEnteredAt: '2030-01-01T00:00:00Z' })).toBe(
      Date.parse('2030-01-01T00:01:00Z'),
    );
  });

  it('is the stored step deadline when it comes before the task timeout', () => {
    expect(effectiveDeadline({ ...base, taskEnteredAt: '2030-01-01T00:09:30Z' })).toBe(
      base.deadlineEpochMillis,
    );
  });

  it('rejects a taskEnteredAt that is not a timestamp, naming the value', () => {
    expect(() => effectiveDeadline({ ...base, taskEnteredAt: 'yesterday' })).toThrow(
      new InvalidAgentRequestError("taskEnteredAt 'yesterday' is not an ISO-8601 timestamp"),
    );
  });
});

describe('timeouts and heartbeats', () => {
  it('gives a call exactly the time left before the deadline, never a negative timeout', () => {
    expect(perCallTimeoutMillis(1_000, 4_500)).toBe(3_500);
    expect(perCallTimeoutMillis(5_000, 4_500)).toBe(0);
  });

  it('beats at half the task heartbeat', () => {
    expect(heartbeatIntervalMillis(3)).toBe(1_500);
  });
});

describe('classifyOutcome', () => {
  it.each([
    [200, 'success'],
    [201, 'success'],
    [400, 'permanent'],
    [403, 'permanent'],
    [404, 'permanent'],
    [409, 'permanent'],
    [422, 'permanent'],
    [408, 'transient'],
    [429, 'transient'],
    [500, 'transient'],
    [503, 'transient'],
    [504, 'transient'],
    [302, 'permanent'],
  ])('HTTP %i is %s', (code, expected) => {
    expect(classifyOutcome(status(code))).toBe(expected);
  });

  it('treats network errors and timeouts as transient', () => {
    expect(classifyOutcome({ kind: 'network-error', message: 'ECONNRESET' })).toBe('transient');
    expect(classifyOutcome({ kind: 'timeout', afterMillis: 10 })).toBe('transient');
  });
});

describe('callWithRetries', () => {
  const settings = { deadline: 1_000_000 + 10_000, maxCallAttempts: 4, backoff };

  function scripted(outcomes: RemoteOutcome[], time: ReturnType<typeof fakeTime>, callMillis = 0) {
    const calls: { startedAt: number; timeoutMillis: number }[] = [];
    const callOnce = async (timeoutMillis: number) => {
      calls.push({ startedAt: time.clock.now(), timeoutMillis });
      time.advance(callMillis);
      const next = outcomes.shift();
      if (!next) throw new Error('test scripted too few outcomes');
      return next;
    };
    return { calls, callOnce };
  }

  it('returns the confirmation of a first-call success without sleeping', async () => {
    const time = fakeTime();
    const { calls, callOnce } = scripted([ok('c-1')], time);
    await expect(callWithRetries(callOnce, settings, { ...time, random: () => 0.5 })).resolves.toEqual({
      kind: 'success',
      confirmationId: 'c-1',
      calls: 1,
    });
    expect(calls).toEqual([{ startedAt: 1_000_000, timeoutMillis: 10_000 }]);
    expect(time.sleeps).toEqual([]);
  });

  it('rides out transient failures with growing jittered delays and reports each retry', async () => {
    const time = fakeTime();
    const { calls, callOnce } = scripted(
      [status(503), { kind: 'network-error', message: 'reset' }, ok()],
      time,
    );
    const retries: number[] = [];
    const result = await callWithRetries(
      callOnce,
      settings,
      { ...time, random: () => 0.5 },
      {
        onRetry: ({ delayMillis }) => retries.push(delayMillis),
      },
    );
    expect(result).toEqual({ kind: 'success', confirmationId: 'c-1', calls: 3 });
    expect(time.sleeps).toEqual([50, 100]);
    expect(retries).toEqual([50, 100]);
    expect(calls.map((c) => c.timeoutMillis)).toEqual([10_000, 9_950, 9_850]);
  });

  it('stops at the first permanent refusal', async () => {
    const time = fakeTime();
    const { calls, callOnce } = scripted([status(503), status(422)], time);
    await expect(callWithRetries(callOnce, settings, { ...time, random: () => 0 })).resolves.toEqual({
      kind: 'permanent',
      detail: 'HTTP 422: status 422',
      calls: 2,
    });
    expect(calls).toHaveLength(2);
  });

  it('gives up after maxCallAttempts calls, reporting the last failure', async () => {
    const time = fakeTime();
    const { calls, callOnce } = scripted([status(500), status(500), status(500), status(429)], time);
    await expect(callWithRetries(callOnce, settings, { ...time, random: () => 0 })).resolves.toEqual({
      kind: 'transient',
      reason: 'attempts-exhausted',
      detail: 'HTTP 429: status 429',
      calls: 4,
    });
    expect(calls).toHaveLength(4);
  });

  it('starts no call at or after the deadline when slow calls eat the window', async () => {
    const time = fakeTime();
    const { calls, callOnce } = scripted(
      [{ kind: 'timeout', afterMillis: 4_000 }, status(503), status(503), status(503)],
      time,
      4_000,
    );
    const result = await callWithRetries(
      callOnce,
      { ...settings, maxCallAttempts: 10 },
      { ...time, random: () => 0.999 },
    );
    expect(result).toMatchObject({ kind: 'transient', reason: 'deadline' });
    for (const call of calls) expect(call.startedAt).toBeLessThan(settings.deadline);
    expect(calls.length).toBeLessThan(4);
  });

  it('makes no call at all when the deadline has already passed', async () => {
    const time = fakeTime(settings.deadline);
    const { calls, callOnce } = scripted([ok()], time);
    await expect(callWithRetries(callOnce, settings, { ...time, random: () => 0 })).resolves.toEqual({
      kind: 'transient',
      reason: 'deadline',
      detail: 'the deadline had passed before the first call',
      calls: 0,
    });
    expect(calls).toEqual([]);
  });

  it('treats a 2xx without a confirmationId as a broken contract, not a success', async () => {
    const time = fakeTime();
    const { callOnce } = scripted([{ kind: 'response', status: 200, body: 'OK' }], time);
    await expect(callWithRetries(callOnce, settings, { ...time, random: () => 0 })).resolves.toMatchObject({
      kind: 'permanent',
      detail: 'HTTP 200 without a confirmationId in the body',
    });
  });

  it('reads whether a compensation undid anything from its answer', async () => {
    const time = fakeTime();
    const { callOnce } = scripted(
      [{ kind: 'response', status: 201, body: { confirmationId: 'r-1', undone: false } }],
      time,
    );
    await expect(
      callWithRetries(callOnce, { ...settings, action: 'compensate' }, { ...time, random: () => 0 }),
    ).resolves.toEqual({ kind: 'success', confirmationId: 'r-1', undone: false, calls: 1 });
  });

  it('treats a compensation answer without a boolean undone as a broken contract', async () => {
    const time = fakeTime();
    const { callOnce } = scripted(
      [{ kind: 'response', status: 201, body: { confirmationId: 'r-1', undone: 'yes' } }],
      time,
    );
    await expect(
      callWithRetries(callOnce, { ...settings, action: 'compensate' }, { ...time, random: () => 0 }),
    ).resolves.toEqual({
      kind: 'permanent',
      detail: 'HTTP 201 without a boolean undone in the body',
      calls: 1,
    });
  });
});

const request: AgentRequest = {
  taskToken: 'token-current',
  orderId: 'order-1',
  step: 'ChargePayment',
  action: 'perform',
  operation: 'ChargePayment',
  instanceId: 'order-1--attempt-2',
  attempt: 2,
  idempotencyKey: 'order-1:ChargePayment',
  deadlineEpochMillis: Date.parse('2030-01-01T00:01:00Z'),
  taskEnteredAt: '2030-01-01T00:00:00Z',
  taskTimeoutSeconds: 120,
  heartbeatSeconds: 4,
  maxCallAttempts: 3,
  order: { customerId: 'c', items: [{ sku: 'A', quantity: 1 }], totalCents: 100, currency: 'EUR' },
  correlationId: 'corr-1',
};

/** The compensation of `request`'s step (RefundPayment of order-1's ChargePayment). */
const compensateRequest: AgentRequest = {
  ...request,
  taskToken: 'token-compensate',
  action: 'compensate',
  operation: 'RefundPayment',
  undoes: 'order-1:ChargePayment',
  idempotencyKey: 'order-1:RefundPayment',
};

const callInput = (from: AgentRequest, deadline: number) => ({
  idempotencyKey: from.idempotencyKey,
  orderId: from.orderId,
  step: from.step,
  action: from.action,
  operation: from.operation,
  ...(from.undoes !== undefined && { undoes: from.undoes }),
  correlationId: from.correlationId,
  order: from.order,
  deadline,
  maxCallAttempts: from.maxCallAttempts,
});

describe('callRemoteOperation', () => {
  it("posts the step's operation with the stable key and returns the AgentResult", async () => {
    const posted: Parameters<RemoteService['post']>[0][] = [];
    const remote: RemoteService = {
      post: async (call) => {
        posted.push(call);
        return ok('pay-1');
      },
    };
    const time = fakeTime(Date.parse('2030-01-01T00:00:10Z'));
    const result = await callRemoteOperation(callInput(request, Date.parse('2030-01-01T00:01:00Z')), {
      remote,
      budget: unlimitedBudget,
      backoff,
      ...time,
      random: () => 0,
    });
    expect(result).toEqual({
      confirmationId: 'pay-1',
      service: 'payment',
      idempotencyKey: 'order-1:ChargePayment',
    });
    expect(posted).toEqual([
      {
        path: '/payments/charges',
        idempotencyKey: 'order-1:ChargePayment',
        correlationId: 'corr-1',
        body: { orderId: 'order-1', ...request.order },
        timeoutMillis: 50_000,
      },
    ]);
  });

  it('throws RemoteCallFailedError so a failed call is never stored as a result', async () => {
    const remote: RemoteService = { post: async () => status(422) };
    const time = fakeTime(0);
    await expect(
      callRemoteOperation(callInput(request, 10_000), {
        remote,
        budget: unlimitedBudget,
        backoff,
        ...time,
        random: () => 0,
      }),
    ).rejects.toBeInstanceOf(RemoteCallFailedError);
  });

  it("posts a compensation to the step's compensation path with { orderId, undoes } under its own key", async () => {
    const posted: Parameters<RemoteService['post']>[0][] = [];
    const remote: RemoteService = {
      post: async (call) => {
        posted.push(call);
        return posted.length === 1
          ? status(503)
          : { kind: 'response', status: 201, body: { confirmationId: 'refund-1', undone: true } };
      },
    };
    const time = fakeTime(Date.parse('2030-01-01T00:00:10Z'));
    const result = await callRemoteOperation(
      callInput(compensateRequest, Date.parse('2030-01-01T00:01:00Z')),
      {
        remote,
        budget: unlimitedBudget,
        backoff,
        ...time,
        random: () => 0,
      },
    );
    expect(result).toEqual({
      confirmationId: 'refund-1',
      service: 'payment',
      idempotencyKey: 'order-1:RefundPayment',
      undone: true,
    });
    expect(posted.map(({ path, idempotencyKey, body }) => ({ path, idempotencyKey, body }))).toEqual([
      {
        path: '/payments/refunds',
        idempotencyKey: 'order-1:RefundPayment',
        body: { orderId: 'order-1', undoes: 'order-1:ChargePayment' },
      },
      {
        path: '/payments/refunds',
        idempotencyKey: 'order-1:RefundPayment',
        body: { orderId: 'order-1', undoes: 'order-1:ChargePayment' },
      },
    ]);
  });

  it('reports undone: false when the service had nothing to undo', async () => {
    const remote: RemoteService = {
      post: async () => ({
        kind: 'response',
        status: 200,
        body: { confirmationId: 'refund-0', undone: false },
      }),
    };
    const time = fakeTime(0);
    await expect(
      callRemoteOperation(callInput(compensateRequest, 10_000), {
        remote,
        budget: unlimitedBudget,
        backoff,
        ...time,
        random: () => 0,
      }),
    ).resolves.toMatchObject({ confirmationId: 'refund-0', undone: false });
  });

  it('throws RemoteCallFailedError when the compensation is refused for good', async () => {
    const remote: RemoteService = { post: async () => status(422) };
    const time = fakeTime(0);
    await expect(
      callRemoteOperation(callInput(compensateRequest, 10_000), {
        remote,
        budget: unlimitedBudget,
        backoff,
        ...time,
        random: () => 0,
      }),
    ).rejects.toMatchObject({ result: { kind: 'permanent', detail: 'HTTP 422: status 422' } });
  });

  it("reserves every call in the order's budget under the operation's name, and stops without calling once it is refused", async () => {
    const posted: string[] = [];
    const remote: RemoteService = {
      post: async (call) => {
        posted.push(call.idempotencyKey);
        return status(503);
      },
    };
    const budget = countingBudget(5);
    const time = fakeTime(0);
    const run = (from: AgentRequest) =>
      callRemoteOperation(
        { ...callInput(from, 60_000), maxCallAttempts: 4 },
        { remote, budget, backoff, ...time, random: () => 0 },
      );
    // Two deliveries of the step (4 calls, then 1 before the budget refuses), then its compensation:
    // a budget of its own.
    await expect(run(request)).rejects.toMatchObject({ result: { kind: 'transient', calls: 4 } });
    await expect(run(request)).rejects.toMatchObject({
      result: {
        kind: 'budget-exhausted',
        calls: 1,
        detail: 'retry budget exhausted: 5 of 5 calls already made for this operation of the order',
      },
    });
    expect(posted).toEqual(Array(5).fill('order-1:ChargePayment'));
    await expect(run(compensateRequest)).rejects.toMatchObject({ result: { kind: 'transient', calls: 4 } });
    expect(budget.asked).toEqual([
      ...Array(6).fill('order-1:ChargePayment'),
      ...Array(4).fill('order-1:RefundPayment'),
    ]);
  });
});

describe('callRemoteOperation: lean requests (markRunning)', () => {
  const mark = { instanceId: 'order-1--attempt-2', step: 'ChargePayment', completeBy: 60_000 };

  it('asks the budget to mark the step Running with every reservation', async () => {
    const asked: Parameters<CallBudget['reserve']>[0][] = [];
    const budget: CallBudget = {
      reserve: async (call) => {
        asked.push(call);
        return { kind: 'reserved' };
      },
    };
    const remote: RemoteService = { post: async () => ok() };
    await callRemoteOperation(
      { ...callInput(request, 60_000), markRunning: mark },
      { remote, budget, backoff, ...fakeTime(0), random: () => 0 },
    );
    expect(asked).toEqual([{ orderId: 'order-1', operation: 'ChargePayment', markRunning: mark }]);
  });

  it('fails when the reservation is fenced: no call, a fenced result the agent answers with Agent.FencedOut', async () => {
    const posted: string[] = [];
    const remote: RemoteService = {
      post: async (call) => {
        posted.push(call.idempotencyKey);
        return ok();
      },
    };
    const budget: CallBudget = {
      reserve: async () => ({ kind: 'fenced', detail: 'locked by another attempt' }),
    };
    await expect(
      callRemoteOperation(
        { ...callInput(request, 60_000), markRunning: mark },
        { remote, budget, backoff, ...fakeTime(0), random: () => 0 },
      ),
    ).rejects.toMatchObject({ result: { kind: 'fenced', calls: 0, detail: 'locked by another attempt' } });
    expect(posted).toEqual([]);
  });
});

describe('resolveAgentOperation', () => {
  it("resolves a perform request to the step's operation", () => {
    expect(resolveAgentOperation(request)).toEqual({
      action: 'perform',
      step: 'ChargePayment',
      service: 'payment',
      operationPath: '/payments/charges',
    });
  });

  it("resolves a compensate request to the step's compensation and the key it undoes", () => {
    expect(resolveAgentOperation(compensateRequest)).toEqual({
      action: 'compensate',
      step: 'ChargePayment',
      service: 'payment',
      compensation: 'RefundPayment',
      operationPath: '/payments/refunds',
      undoes: 'order-1:ChargePayment',
    });
  });

  it.each<[string, Partial<AgentRequest>, string]>([
    ['perform naming another operation', { operation: 'RefundPayment' }, "names operation 'RefundPayment'"],
    ['perform that undoes', { undoes: 'order-1:ChargePayment' }, 'only a compensation undoes'],
    ['unknown step', { step: 'Teleport', operation: 'Teleport' }, "Unknown step 'Teleport'"],
  ])('rejects a %s', (_case, change, message) => {
    expect(() => resolveAgentOperation({ ...request, ...change })).toThrow(InvalidAgentRequestError);
    expect(() => resolveAgentOperation({ ...request, ...change })).toThrow(message);
  });

  it.each<[string, Partial<AgentRequest>, string]>([
    ['naming the step itself', { operation: 'ChargePayment' }, "not its compensation 'RefundPayment'"],
    [
      "naming another step's compensation",
      { operation: 'ReleaseInventory' },
      "not its compensation 'RefundPayment'",
    ],
    ['without undoes', { undoes: undefined }, "lacks undoes (expected 'order-1:ChargePayment')"],
    [
      "undoing another step's key",
      { undoes: 'order-1:ReserveInventory' },
      "not the step's key 'order-1:ChargePayment'",
    ],
    ["undoing another order's key", { undoes: 'order-2:ChargePayment' }, "not the step's key"],
    [
      "keyed on the step's own key",
      { idempotencyKey: 'order-1:ChargePayment' },
      "not the compensation's key 'order-1:RefundPayment'",
    ],
  ])('rejects a compensation %s', (_case, change, message) => {
    const { undoes: _undoes, ...withoutUndoes } = compensateRequest;
    const changed =
      'undoes' in change && change.undoes === undefined ? withoutUndoes : { ...compensateRequest, ...change };
    expect(() => resolveAgentOperation(changed)).toThrow(InvalidAgentRequestError);
    expect(() => resolveAgentOperation(changed)).toThrow(message);
  });
});

describe('handleAgentRequest', () => {
  function ports(
    callRemote: () => Promise<AgentResult>,
    delivery: CallbackDelivery = 'delivered',
    time = fakeTime(Date.parse('2030-01-01T00:00:10Z')),
  ) {
    const succeeded: [string, AgentResult][] = [];
    const failed: [string, string, string][] = [];
    const heartbeats = { started: [] as [string, number][], stopped: 0 };
    return {
      succeeded,
      failed,
      heartbeats,
      ports: {
        callRemoteIdempotently: callRemote,
        callbacks: {
          succeed: async (token: string, result: AgentResult) => {
            succeeded.push([token, result]);
            return delivery;
          },
          fail: async (token: string, error: string, cause: string) => {
            failed.push([token, error, cause]);
            return delivery;
          },
        },
        heartbeats: {
          start: (token: string, interval: number) => {
            heartbeats.started.push([token, interval]);
            return () => {
              heartbeats.stopped += 1;
            };
          },
        },
        concurrentDeliveryWait: { clock: time.clock, sleep: time.sleep, random: () => 0.5, backoff },
      },
    };
  }
  const result: AgentResult = {
    confirmationId: 'pay-1',
    service: 'payment',
    idempotencyKey: request.idempotencyKey,
  };
  const failure = (r: Exclude<CallResult, { kind: 'success' }>) => async () => {
    throw new RemoteCallFailedError(r);
  };

  it('answers the CURRENT token with the result, heartbeating that token meanwhile', async () => {
    const h = ports(async () => result);
    await expect(handleAgentRequest(request, h.ports)).resolves.toEqual({
      kind: 'succeeded',
      result,
      delivery: 'delivered',
    });
    expect(h.succeeded).toEqual([['token-current', result]]);
    expect(h.heartbeats).toEqual({ started: [['token-current', 2_000]], stopped: 1 });
  });

  it('keys the call on the stable idempotency key and passes the effective deadline', async () => {
    const seen: unknown[] = [];
    const h = ports(async () => result);
    await handleAgentRequest(request, {
      ...h.ports,
      callRemoteIdempotently: async (input) => {
        seen.push(input);
        return result;
      },
    });
    expect(seen).toEqual([
      expect.objectContaining({
        idempotencyKey: 'order-1:ChargePayment',
        deadline: Date.parse('2030-01-01T00:01:00Z'),
        maxCallAttempts: 3,
      }),
    ]);
    expect(JSON.stringify(seen)).not.toContain('token-current');
  });

  it('reports a permanent refusal as Agent.PermanentFailure', async () => {
    const h = ports(failure({ kind: 'permanent', detail: 'HTTP 422: refused', calls: 1 }));
    await expect(handleAgentRequest(request, h.ports)).resolves.toMatchObject({
      kind: 'failed',
      error: AgentError.Permanent,
      reason: 'permanent',
    });
    expect(h.failed).toEqual([['token-current', 'Agent.PermanentFailure', 'HTTP 422: refused']]);
  });

  it('reports exhausted retries and a reached deadline as Agent.TransientFailure', async () => {
    const exhausted = ports(
      failure({ kind: 'transient', reason: 'attempts-exhausted', detail: 'HTTP 503', calls: 3 }),
    );
    await handleAgentRequest(request, exhausted.ports);
    expect(exhausted.failed).toEqual([
      ['token-current', 'Agent.TransientFailure', 'all 3 calls failed; last failure: HTTP 503'],
    ]);
    const late = ports(
      failure({ kind: 'transient', reason: 'deadline', detail: 'no answer within 5 ms', calls: 1 }),
    );
    await expect(handleAgentRequest(request, late.ports)).resolves.toMatchObject({ reason: 'deadline' });
    expect(late.failed[0]?.[1]).toBe('Agent.TransientFailure');
  });

  it('reports a key reused with different order data as permanent', async () => {
    const h = ports(async () => {
      throw new IdempotencyKeyReusedError(request.idempotencyKey);
    });
    await expect(handleAgentRequest(request, h.ports)).resolves.toMatchObject({
      error: AgentError.Permanent,
    });
  });

  it('waits for another delivery that holds the key, then answers with the stored result', async () => {
    const time = fakeTime(Date.parse('2030-01-01T00:00:10Z'));
    let tries = 0;
    const h = ports(
      async () => {
        tries += 1;
        if (tries < 3) throw new ConcurrentDeliveryError(request.idempotencyKey);
        return result;
      },
      'delivered',
      time,
    );
    await expect(handleAgentRequest(request, h.ports)).resolves.toMatchObject({ kind: 'succeeded', result });
    expect(tries).toBe(3);
    // Full jitter (random 0.5): half of 100 ms, then half of 200 ms.
    expect(time.sleeps).toEqual([50, 100]);
    expect(h.succeeded).toEqual([['token-current', result]]);
  });

  it('gives up at the deadline when the key stays held, answering Agent.TransientFailure', async () => {
    const time = fakeTime(Date.parse('2030-01-01T00:00:10Z'));
    const h = ports(
      async () => {
        throw new ConcurrentDeliveryError(request.idempotencyKey);
      },
      'delivered',
      time,
    );
    await expect(handleAgentRequest(request, h.ports)).resolves.toMatchObject({
      kind: 'failed',
      error: AgentError.TransientExhausted,
      reason: 'deadline',
    });
    // It never sleeps past the effective deadline (00:01:00).
    expect(time.clock.now()).toBeLessThan(Date.parse('2030-01-01T00:01:00Z'));
    expect(h.failed[0]?.[2]).toMatch(/another delivery for idempotency key 'order-1:ChargePayment'/);
    expect(h.heartbeats.stopped).toBe(1);
  });

  it('answers a compensation with its result, undone included, under the compensation key', async () => {
    const seen: unknown[] = [];
    const undo: AgentResult = {
      confirmationId: 'refund-1',
      service: 'payment',
      idempotencyKey: 'order-1:RefundPayment',
      undone: true,
    };
    const h = ports(async () => undo);
    await expect(
      handleAgentRequest(compensateRequest, {
        ...h.ports,
        callRemoteIdempotently: async (input) => {
          seen.push(input);
          return undo;
        },
      }),
    ).resolves.toEqual({ kind: 'succeeded', result: undo, delivery: 'delivered' });
    expect(seen).toEqual([
      expect.objectContaining({
        idempotencyKey: 'order-1:RefundPayment',
        action: 'compensate',
        operation: 'RefundPayment',
        undoes: 'order-1:ChargePayment',
      }),
    ]);
    expect(h.succeeded).toEqual([['token-compensate', undo]]);
    expect(h.heartbeats.started).toEqual([['token-compensate', 2_000]]);
  });

  it('passes a late delivery through so the handler can drop it', async () => {
    const h = ports(async () => result, 'late');
    await expect(handleAgentRequest(request, h.ports)).resolves.toMatchObject({ delivery: 'late' });
  });
});

describe('remoteOperationFor', () => {
  it("maps a step to its service's operation path", () => {
    expect(remoteOperationFor('ReserveInventory')).toEqual({
      service: 'inventory',
      operationPath: '/inventory/reservations',
    });
  });

  it('names the unknown step and the known ones', () => {
    expect(() => remoteOperationFor('Teleport')).toThrow(
      "Unknown step 'Teleport'. Known steps: ReserveInventory, ChargePayment, ScheduleShipping",
    );
  });
});

describe('idempotencyRetentionSeconds', () => {
  it('covers every attempt the supervisor can make with the default profile', () => {
    const { timings } = loadConfig('default');
    // 5 attempts x (4 steps of the longest workflow version x (120 + 30) s + 900 s longest
    // back-off + 120 s start grace)
    expect(idempotencyRetentionSeconds(timings)).toBe(5 * (4 * 150 + 900 + 120));
  });

  it('never drops below an hour', () => {
    expect(idempotencyRetentionSeconds(loadConfig('local').timings)).toBe(3600);
  });
});
