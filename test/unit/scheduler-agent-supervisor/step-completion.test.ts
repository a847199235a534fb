import {
  AgentError,
  type AgentRequest,
  type AgentResult,
} from '../../../lambdas/scheduler-agent-supervisor/contracts';
import {
  handleAgentRequest,
  resolveAgentOperation,
} from '../../../lambdas/scheduler-agent-supervisor/domain/agent';
import { InvalidAgentRequestError } from '../../../lambdas/scheduler-agent-supervisor/domain/errors';
import type {
  CompletionRecord,
  StepCompletion,
  StepCompletions,
} from '../../../lambdas/scheduler-agent-supervisor/domain/ports';
import { stepCompletion } from '../../../lambdas/scheduler-agent-supervisor/domain/step-completion';

const request: AgentRequest = {
  taskToken: 'token-current',
  orderId: 'order-1',
  step: 'ChargePayment',
  action: 'perform',
  operation: 'ChargePayment',
  instanceId: 'order-1--attempt-1',
  attempt: 1,
  idempotencyKey: 'order-1:ChargePayment',
  deadlineEpochMillis: Date.parse('2030-01-01T00:01:00Z'),
  taskEnteredAt: '2030-01-01T00:00:00Z',
  taskTimeoutSeconds: 120,
  heartbeatSeconds: 4,
  maxCallAttempts: 3,
  markRunning: true,
  recordCompletion: { seq: 2, nextDeadlineEpochMillis: Date.parse('2030-01-01T00:02:00Z') },
  order: { customerId: 'c-1', items: [{ sku: 'BOOK', quantity: 1 }], totalCents: 100, currency: 'EUR' },
  correlationId: 'corr-1',
};
const result: AgentResult = {
  confirmationId: 'pay-1',
  service: 'payment',
  idempotencyKey: request.idempotencyKey,
};

describe('stepCompletion', () => {
  it('records the step at its position, with its compensation, the key it undoes and the confirmation', () => {
    expect(stepCompletion(request, result)).toEqual({
      orderId: 'order-1',
      instanceId: 'order-1--attempt-1',
      step: 'ChargePayment',
      seq: 2,
      compensation: 'RefundPayment',
      undoes: 'order-1:ChargePayment',
      confirmationId: 'pay-1',
      after: { kind: 'hand-over', completeBy: Date.parse('2030-01-01T00:02:00Z') },
    });
  });

  it('finishes the order after the last step', () => {
    const last = { ...request, recordCompletion: { seq: 3, finishesOrder: true as const } };
    expect(stepCompletion(last, result).after).toEqual({ kind: 'finish-order' });
  });
});

describe('resolveAgentOperation: recordCompletion', () => {
  it('refuses it on a perform request that does not mark its step Running', () => {
    const { markRunning: _markRunning, ...withoutMark } = request;
    expect(() => resolveAgentOperation(withoutMark)).toThrow(InvalidAgentRequestError);
    expect(() => resolveAgentOperation(withoutMark)).toThrow(/carries recordCompletion/);
  });

  it('refuses it on a compensation', () => {
    const compensate = {
      ...request,
      action: 'compensate' as const,
      operation: 'RefundPayment',
      undoes: 'order-1:ChargePayment',
      idempotencyKey: 'order-1:RefundPayment',
    };
    expect(() => resolveAgentOperation(compensate)).toThrow(
      /a compensate request .* carries recordCompletion/,
    );
  });
});

describe('handleAgentRequest with recordCompletion', () => {
  function harness(record: (completion: StepCompletion) => Promise<CompletionRecord>) {
    const answers: string[] = [];
    const written: StepCompletion[] = [];
    let calls = 0;
    const completions: StepCompletions = {
      record: async (completion) => {
        written.push(completion);
        return record(completion);
      },
    };
    const ports = {
      callRemoteIdempotently: async () => {
        calls += 1;
        return result;
      },
      callbacks: {
        succeed: async (token: string) => {
          answers.push(`success ${token}`);
          return 'delivered' as const;
        },
        fail: async (token: string, error: string) => {
          answers.push(`failure ${token} ${error}`);
          return 'delivered' as const;
        },
      },
      heartbeats: { start: () => () => undefined },
      concurrentDeliveryWait: {
        clock: { now: () => Date.parse('2030-01-01T00:00:10Z') },
        sleep: async () => undefined,
        random: () => 0.5,
        backoff: { baseMillis: 10, capMillis: 100 },
      },
      completions,
    };
    return { answers, written, ports, calls: () => calls };
  }

  it('writes the completion after the call and before the answer', async () => {
    const h = harness(async () => ({ kind: 'recorded' }));
    await expect(handleAgentRequest(request, h.ports)).resolves.toMatchObject({ kind: 'succeeded', result });
    expect(h.written).toHaveLength(1);
    expect(h.answers).toEqual(['success token-current']);
  });

  it('answers success when another delivery recorded it first', async () => {
    const h = harness(async () => ({ kind: 'already-recorded' }));
    await expect(handleAgentRequest(request, h.ports)).resolves.toMatchObject({ kind: 'succeeded' });
    expect(h.answers).toEqual(['success token-current']);
  });

  it('answers Agent.FencedOut with the reason when the lock is gone, never success', async () => {
    const h = harness(async () => ({ kind: 'fenced', detail: "locked by 'order-1--attempt-2'" }));
    await expect(handleAgentRequest(request, h.ports)).resolves.toMatchObject({
      kind: 'failed',
      error: AgentError.FencedOut,
      reason: 'fenced',
      cause: "locked by 'order-1--attempt-2'",
    });
    expect(h.answers).toEqual([`failure token-current ${AgentError.FencedOut}`]);
  });

  it('answers nothing when the write fails otherwise: the message comes back and writes it then', async () => {
    const h = harness(async () => {
      throw Object.assign(new Error('throttled'), { name: 'ProvisionedThroughputExceededException' });
    });
    await expect(handleAgentRequest(request, h.ports)).rejects.toThrow('throttled');
    expect(h.answers).toEqual([]);
  });

  it('writes nothing for a request without recordCompletion (lean and classic versions)', async () => {
    const h = harness(async () => ({ kind: 'recorded' }));
    const { recordCompletion: _recordCompletion, ...lean } = request;
    await handleAgentRequest(lean, h.ports);
    expect(h.written).toEqual([]);
  });

  it('refuses, before any call, a request that may not carry recordCompletion (no markRunning)', async () => {
    const h = harness(async () => ({ kind: 'recorded' }));
    const { markRunning: _markRunning, ...withoutMark } = request;
    await expect(handleAgentRequest(withoutMark, h.ports)).rejects.toThrow(InvalidAgentRequestError);
    expect(h.calls()).toBe(0);
    expect(h.answers).toEqual([]);
  });

  it('refuses, before any call, a request it has no completions port for', async () => {
    const h = harness(async () => ({ kind: 'recorded' }));
    const { completions: _completions, ...withoutPort } = h.ports;
    await expect(handleAgentRequest(request, withoutPort)).rejects.toThrow(/without a completions port/);
    expect(h.calls()).toBe(0);
  });
});
