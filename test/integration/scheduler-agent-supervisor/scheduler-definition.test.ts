/**
 * The real scheduler state machine, synthesized from the CDK stack (profile local), run by the
 * local Step Functions runtime against DynamoDB Local and the runtime's SQS service. A scripted agent answers the
 * agent queues through the real SFN API, the way the agent Lambda does (see scheduler-harness.ts).
 * The compensation paths are in compensation.test.ts.
 */
import { SendTaskHeartbeatCommand } from '@aws-sdk/client-sfn';
import {
  DEFAULT_WORKFLOW_VERSION,
  workflowSteps,
} from '../../../lambdas/scheduler-agent-supervisor/contracts';
import { config, type SchedulerHarness, startSchedulerHarness, stepStatus } from './scheduler-harness';

/** The steps of an order on the default workflow version (what these tests deploy). */
const V1_STEPS = workflowSteps(DEFAULT_WORKFLOW_VERSION);

const { stepTimeoutSeconds, stepHeartbeatSeconds } = config.timings;

describe('the synthesized scheduler state machine on the local runtime', () => {
  let s: SchedulerHarness;

  beforeAll(async () => {
    s = await startSchedulerHarness();
  }, 120_000);

  afterAll(async () => {
    await s.stop();
  });

  afterEach(() => {
    expect(s.unexpected).toEqual([]);
  });

  it('runs every step through the agents and ends Processed, unlocked and out of the index', async () => {
    const instanceId = await s.seed('order-happy', { attempt: 1 });
    s.agents.set('order-happy', s.succeed);
    const ended = await s.start('order-happy', instanceId, 1);
    expect(ended.status).toBe('SUCCEEDED');

    const item = await s.record('order-happy');
    expect(item.ProcessState).toEqual({ S: 'Processed' });
    expect(item.LockedBy).toBeUndefined();
    expect(item.DueShard).toBeUndefined();
    for (const step of V1_STEPS) {
      expect(stepStatus(item, step.name)).toBe('Completed');
      expect(item.Steps?.M?.[step.name]?.M?.Result).toEqual({
        M: { ConfirmationId: { S: `conf-${step.name}` } },
      });
      // Each completed step's undo was recorded by the same write.
      expect(item.CompensationLog?.M?.[step.name]?.M).toMatchObject({
        Status: { S: 'Recorded' },
        Compensation: { S: step.compensation.name },
        Undoes: { S: `order-happy:${step.name}` },
        ConfirmationId: { S: `conf-${step.name}` },
      });
    }
    expect(item.RunningStep).toBeUndefined();
    const requests = s.received.get('order-happy') ?? [];
    expect(requests.map((request) => request.step)).toEqual(V1_STEPS.map((step) => step.name));
    const planned = item.Plan?.M ?? {};
    for (const request of requests) {
      expect(request).toMatchObject({
        instanceId,
        attempt: 1,
        idempotencyKey: `order-happy:${request.step}`,
        deadlineEpochMillis: Number(planned[request.step]?.N),
        taskTimeoutSeconds: stepTimeoutSeconds,
        heartbeatSeconds: stepHeartbeatSeconds,
        order: {
          customerId: 'customer-1',
          items: [{ sku: 'SKU-1', quantity: 2 }],
          totalCents: 1999,
          currency: 'EUR',
        },
        correlationId: 'corr-order-happy',
      });
      expect(Number.isNaN(Date.parse(request.taskEnteredAt))).toBe(false);
    }
  });

  it('a silent or slow agent abandons the attempt and leaves the record Processing with an expired CompleteBy', async () => {
    // Short plans, so each CompleteBy has passed when the attempt is abandoned.
    const silentId = await s.seed('order-silent', { attempt: 1, planOffsetMillis: 1_000 });
    const slowId = await s.seed('order-slow', { attempt: 1, planOffsetMillis: 1_000 });
    s.agents.set('order-silent', async () => undefined);
    // Heartbeats keep the task alive, so only TimeoutSeconds can end it.
    s.agents.set('order-slow', async (request) => {
      const until = Date.now() + (stepTimeoutSeconds + 1) * 1000;
      while (Date.now() < until) {
        const beat = await s.h.client
          .send(new SendTaskHeartbeatCommand({ taskToken: request.taskToken }))
          .then(
            () => true,
            () => false,
          );
        if (!beat) return;
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    });
    const before = Date.now();
    const [silent, slow] = await Promise.all([
      s.start('order-silent', silentId, 1),
      s.start('order-slow', slowId, 1),
    ]);
    const slowElapsed = Date.now() - before;

    expect(silent).toMatchObject({ status: 'FAILED', error: 'AttemptAbandoned' });
    expect(slow).toMatchObject({ status: 'FAILED', error: 'AttemptAbandoned' });
    expect(slowElapsed).toBeGreaterThanOrEqual(stepTimeoutSeconds * 1000);
    for (const [orderId, instanceId] of [
      ['order-silent', silentId],
      ['order-slow', slowId],
    ] as const) {
      const item = await s.record(orderId);
      expect(item.ProcessState).toEqual({ S: 'Processing' });
      expect(item.LockedBy).toEqual({ S: instanceId });
      expect(item.DueShard).toEqual({ S: '0' });
      expect(stepStatus(item, 'ReserveInventory')).toBe('Running');
      // What the supervisor will mark TimedOut.
      expect(item.RunningStep).toEqual({ S: 'ReserveInventory' });
      expect(Number(item.CompleteBy?.N)).toBe(Number(item.Plan?.M?.ReserveInventory?.N));
      expect(Number(item.CompleteBy?.N)).toBeLessThan(Date.now());
    }
  });

  it('an execution whose instanceId lost the lock is FencedOut and changes nothing', async () => {
    await s.seed('order-stale', { attempt: 2 });
    const before = await s.record('order-stale');
    s.agents.set('order-stale', s.succeed);
    const ended = await s.start('order-stale', 'order-stale--attempt-1', 1);
    expect(ended.status).toBe('SUCCEEDED');
    expect(await s.record('order-stale')).toEqual(before);
    expect(s.received.get('order-stale')).toBeUndefined();
  });

  it('a new attempt skips the steps an earlier attempt completed', async () => {
    const instanceId = await s.seed('order-resume', {
      attempt: 2,
      steps: { ReserveInventory: { status: 'Completed', log: 'Recorded' } },
    });
    s.agents.set('order-resume', s.succeed);
    const ended = await s.start('order-resume', instanceId, 2);
    expect(ended.status).toBe('SUCCEEDED');
    expect((s.received.get('order-resume') ?? []).map((request) => request.step)).toEqual([
      'ChargePayment',
      'ScheduleShipping',
    ]);
    const item = await s.record('order-resume');
    expect(item.ProcessState).toEqual({ S: 'Processed' });
    expect(item.Steps?.M?.ReserveInventory?.M?.Result).toEqual({
      M: { ConfirmationId: { S: 'from-attempt-1' } },
    });
    expect(stepStatus(item, 'ChargePayment')).toBe('Completed');
    expect(stepStatus(item, 'ScheduleShipping')).toBe('Completed');
  });
});
