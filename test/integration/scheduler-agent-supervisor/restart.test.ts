/**
 * `npm start -- --data DIR`: the real app's assembly on the local runtime, stopped while an order is
 * in flight and started again on the same data directory. In-flight executions and queued messages
 * die with the runtime (as a crashed region would lose them); the durable state store survives, and
 * the supervisor finds the expired attempt and the order completes with one effect per step.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DEFAULT_WORKFLOW_VERSION,
  workflowSteps,
} from '../../../lambdas/scheduler-agent-supervisor/contracts';
import { type LocalRuntime, startLocalRuntime, synthesizeLocalAssembly } from '../../../lib/local-runtime';
import { SystemClient } from '../../acceptance/scheduler-agent-supervisor/system-client';
import { parseTargetDescription } from '../../acceptance/target';
import { testClock, testTimingsContext } from '../../support/test-clock';

/** The steps of an order on the default workflow version (what these tests deploy). */
const V1_STEPS = workflowSteps(DEFAULT_WORKFLOW_VERSION);

jest.setTimeout(180_000);

describe('local runtime restart with --data', () => {
  let workDir: string;
  let assemblyDir: string;
  let dataDir: string;
  const running: LocalRuntime[] = [];

  const start = async (): Promise<{ runtime: LocalRuntime; system: SystemClient }> => {
    const runtime = await startLocalRuntime({
      assemblyDir,
      dataDir,
      port: 0,
      targetFile: null,
      log: () => undefined,
      clock: testClock(),
    });
    running.push(runtime);
    const system = new SystemClient(parseTargetDescription(runtime.target, { kind: 'local' }));
    return { runtime, system };
  };

  beforeAll(() => {
    workDir = mkdtempSync(join(tmpdir(), 'restart-it-'));
    assemblyDir = join(workDir, 'cdk.out');
    dataDir = join(workDir, 'data');
    synthesizeLocalAssembly(assemblyDir, { context: testTimingsContext() });
  });

  afterAll(async () => {
    await Promise.all(running.map((runtime) => runtime.stop()));
    rmSync(workDir, { recursive: true, force: true });
  });

  it('resumes an order that was in flight when the runtime stopped', async () => {
    const orderId = `restart-${Date.now()}`;
    const first = await start();
    const accepted = await first.system.submit({
      orderId,
      customerId: 'c-restart',
      items: [{ sku: 'STALL-ONCE', quantity: 1 }],
      totalCents: 500,
      currency: 'EUR',
    });
    expect(accepted.status).toBe(202);

    // Stop while the payment call is stalled: the charge is in the ledger but unanswered, the step
    // is Running and the attempt holds the lock (and the agent's in-progress idempotency record).
    const charged = `${orderId}:ChargePayment`;
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      const effects = await first.system.ledgerEffects(orderId);
      if (effects.some((effect) => effect.IdempotencyKey?.S === charged)) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const inFlight = await first.system.state(orderId);
    expect(inFlight?.steps.ChargePayment).toBe('Running');
    expect(inFlight).toMatchObject({
      processState: 'Processing',
      attempt: 1,
      lockedBy: `${orderId}--attempt-1`,
    });
    first.system.close();
    await first.runtime.stop();
    running.splice(running.indexOf(first.runtime), 1);

    const second = await start();
    try {
      // The tables came back from disk: the order is still on attempt 1. Still Processing, unless
      // the restarted supervisor has already found that attempt expired (on a slow start it can
      // sweep before this read) and reset it to Pending for the next one.
      const restored = await second.system.state(orderId);
      expect(restored?.attempt).toBe(1);
      expect(['Processing', 'Pending']).toContain(restored?.processState);
      const done = await second.system.waitForState(orderId, ['Processed', 'Error'], 90_000);
      // Attempt 1 died with the runtime and counts as one failure. Attempt 2 normally completes;
      // on a loaded machine its cold agents can still miss a deadline, and the supervisor then runs
      // a third (maxFailures is 3 in the local profile): either way each attempt after the first
      // follows one counted failure, and no effect is made twice (below).
      expect(done.processState).toBe('Processed');
      expect(done.attempt).toBeGreaterThanOrEqual(2);
      expect(done.failureCount).toBe(done.attempt - 1);
      const keys = (await second.system.ledgerEffects(orderId)).map((e) => e.IdempotencyKey?.S).sort();
      expect(keys).toEqual(V1_STEPS.map((step) => `${orderId}:${step.name}`).sort());
    } finally {
      second.system.close();
    }
  });
});
