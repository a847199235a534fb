/**
 * Operator acceptance scenarios through the whole system: the /operator routes of the API, signed
 * with SigV4 by the CLI's own client (the local runtime's operator identity, or on AWS the standard
 * credential chain), acting on orders the fake downstream drove into each state. They read the
 * state store and the downstream ledger named by the target description, like orders.test.ts.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { READ_ONLY_OPERATOR_IDENTITY } from '../../../bin/app-local-users';
import {
  DEFAULT_WORKFLOW_VERSION,
  type OperatorOrderDetailBody,
  type OperatorRefusalBody,
  ProcessState,
  StepRunOutcome,
  StepRunsRead,
  StepStatus,
  workflowSteps,
} from '../../../lambdas/scheduler-agent-supervisor/contracts';
import { OperatorClient } from '../../../lib/harness/operator-client';
import { acceptanceTarget, scenarioTimeoutMs, TARGET_ENV } from '../setup';
import { SystemClient } from './system-client';

/** The steps of an order on the default workflow version (what these tests deploy). */
const V1_STEPS = workflowSteps(DEFAULT_WORKFLOW_VERSION);

const runId = randomUUID().slice(0, 8);
const orderId = (name: string) => `op-${runId}-${name}`;
const order = (id: string, sku = 'SKU-1') => ({
  orderId: id,
  customerId: 'customer-7',
  items: [{ sku, quantity: 1 }],
  totalCents: 4200,
  currency: 'EUR',
});

const stepOf = (name: string) => {
  const step = V1_STEPS.find((candidate) => candidate.name === name);
  if (!step) throw new Error(`No step ${name}`);
  return step;
};
const RESERVE = stepOf('ReserveInventory');
const CHARGE = stepOf('ChargePayment');
const SHIP = stepOf('ScheduleShipping');

/**
 * How long an OUTAGE order may take to reach Error: maxFailures attempts, each abandoned by its
 * agent and expired by the supervisor (the local profile: 3 attempts of about half a minute).
 */
const UNTIL_ERROR_MS = 2 * scenarioTimeoutMs.recovery;

let system: SystemClient;
let operator: OperatorClient;
const ids = {
  permFail: orderId('perm'),
  processed: orderId('done'),
  outage: orderId('outage'),
  stalled: orderId('stalled'),
};

beforeAll(async () => {
  system = new SystemClient(acceptanceTarget());
  operator = system.operator();
  // Submitted together so the slow scenarios run while the quick ones are checked.
  const submitted = await Promise.all([
    system.submit(order(ids.permFail, 'PERM-FAIL')),
    system.submit(order(ids.processed)),
    system.submit(order(ids.outage, 'OUTAGE')),
    system.submit(order(ids.stalled, 'STALL-ONCE')),
  ]);
  expect(submitted.map((response) => response.status)).toEqual([202, 202, 202, 202]);
});
afterAll(() => system.close());

/** What the operator saw, to act on (expectedState and expectedUpdatedAt). */
async function look(id: string): Promise<OperatorOrderDetailBody> {
  const answer = await operator.show(id);
  expect(answer.status).toBe(200);
  return answer.body;
}

async function waitUntil<T>(
  what: string,
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs: number,
) {
  const deadline = Date.now() + timeoutMs;
  let last = await read();
  while (!done(last)) {
    if (Date.now() > deadline)
      throw new Error(`${what} not seen within ${timeoutMs} ms; last: ${JSON.stringify(last)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
    last = await read();
  }
  return last;
}

describe('authorisation', () => {
  it('refuses unsigned requests to every operator route with 403 (the API key is not enough)', async () => {
    const routes: [string, string, string?][] = [
      ['GET', '/operator/orders?state=Error'],
      ['GET', `/operator/orders/${ids.processed}`],
      ['GET', `/operator/orders/${ids.processed}/workflow`],
      [
        'POST',
        `/operator/orders/${ids.processed}/cancel`,
        JSON.stringify({
          reason: 'r',
          expectedState: 'Processed',
          expectedUpdatedAt: new Date().toISOString(),
        }),
      ],
    ];
    for (const [method, path, body] of routes) {
      const response = await system.request(method, path, body);
      expect({ method, path, status: response.status }).toEqual({ method, path, status: 403 });
    }
  });

  // The local runtime's other users (the clients) hold no OperatorAccess policy: local runs only.
  const localOnly = ['aws', 'localstack'].includes(process.env.ACCEPTANCE_KIND ?? 'local') ? it.skip : it;
  localOnly(
    'refuses a signed request from an identity without the OperatorAccess policy (403, IAM’s words)',
    async () => {
      const target = acceptanceTarget();
      const other = Object.entries(target.identities ?? {}).find(
        ([name]) => name !== 'operator' && name !== READ_ONLY_OPERATOR_IDENTITY,
      )?.[1];
      if (!other) throw new Error('The local target lists no identity besides the operator');
      const stranger = new OperatorClient({
        apiUrl: target.outputs.ApiUrl ?? '',
        region: target.region,
        credentials: { accessKeyId: other.accessKeyId, secretAccessKey: other.secretAccessKey },
      });
      const answer = await stranger.show(ids.processed);
      expect(answer.status).toBe(403);
      expect(answer.body).toEqual({
        Message: expect.stringMatching(
          new RegExp(
            `^User: ${other.userArn} is not authorized to perform: execute-api:Invoke on resource: arn:aws:execute-api:.*/GET/operator/orders/${ids.processed}`,
          ),
        ),
      });
    },
  );

  // The local runtime's `operator-readonly` user holds the OperatorReadOnly policies
  // (bin/app-local-users.ts); on AWS the target would need such an identity: local runs only.
  localOnly(
    'lets a read-only operator list and show, and refuses it retry and cancel (403, IAM’s words)',
    async () => {
      const target = acceptanceTarget();
      const identity = target.identities?.[READ_ONLY_OPERATOR_IDENTITY];
      if (!identity) throw new Error(`The local target lists no ${READ_ONLY_OPERATOR_IDENTITY} identity`);
      const reader = new OperatorClient({
        apiUrl: target.outputs.ApiUrl ?? '',
        region: target.region,
        credentials: { accessKeyId: identity.accessKeyId, secretAccessKey: identity.secretAccessKey },
      });
      expect((await reader.list({ state: ProcessState.Processed })).status).toBe(200);
      const shown = await reader.show(ids.processed);
      expect(shown.status).toBe(200);
      // Refused by API Gateway before any handler runs, whatever the order's state.
      const request = {
        reason: 'a read-only operator tries',
        expectedState: shown.body.processState,
        expectedUpdatedAt: shown.body.updatedAt,
      };
      for (const action of ['retry', 'cancel'] as const) {
        const refused = await reader.act(action, ids.processed, request);
        expect({ action, status: refused.status }).toEqual({ action, status: 403 });
        expect(refused.body).toEqual({
          Message: expect.stringMatching(
            new RegExp(
              `^User: ${identity.userArn} is not authorized to perform: execute-api:Invoke on resource: arn:aws:execute-api:.*/POST/operator/orders/${ids.processed}/${action}`,
            ),
          ),
        });
      }
    },
  );
});

describe('a compensated order (PERM-FAIL: payment refuses for good)', () => {
  it('is listed among the Compensated orders', async () => {
    await system.waitForState(ids.permFail, [ProcessState.Compensated], scenarioTimeoutMs.normal);
    const found: string[] = [];
    let cursor: string | undefined;
    // Newest first: this run's order is on the first pages however many earlier runs left.
    for (let page = 0; page < 5 && !found.includes(ids.permFail); page += 1) {
      const answer = await operator.list({
        state: ProcessState.Compensated,
        limit: 100,
        ...(cursor && { cursor }),
      });
      expect(answer.status).toBe(200);
      expect(answer.body.items.every((row) => row.processState === ProcessState.Compensated)).toBe(true);
      found.push(...answer.body.items.map((row) => row.orderId));
      cursor = answer.body.nextCursor;
      if (cursor === undefined) break;
    }
    expect(found).toContain(ids.permFail);
  });

  it('inspect shows the failed step, the undone one, its compensation log entry and the attempt', async () => {
    const detail = await look(ids.permFail);
    expect(detail).toMatchObject({
      orderId: ids.permFail,
      processState: ProcessState.Compensated,
      attempt: 1,
    });
    expect(Object.fromEntries(detail.steps.map((step) => [step.name, step.status]))).toEqual({
      [RESERVE.name]: StepStatus.Compensated,
      [CHARGE.name]: StepStatus.Failed,
      [SHIP.name]: StepStatus.NotStarted,
    });
    // Only the completed step had anything to undo.
    expect(detail.compensationLog).toEqual([
      expect.objectContaining({
        step: RESERVE.name,
        compensation: RESERVE.compensation.name,
        undoes: `${ids.permFail}:${RESERVE.name}`,
        status: 'Compensated',
        confirmationId: expect.any(String),
        compensatedAt: expect.any(String),
      }),
    ]);
    expect(detail.attempts).toEqual([
      expect.objectContaining({
        attempt: 1,
        executionName: `${ids.permFail}--attempt-1`,
        status: 'SUCCEEDED',
        stepRunsRead: StepRunsRead.All,
      }),
    ]);
    // From the execution's history: each agent call, the undo included, in the order it ran.
    expect(detail.attempts[0]?.stepRuns.map((run) => [run.step, run.action, run.outcome, run.error])).toEqual(
      [
        [RESERVE.name, 'perform', StepRunOutcome.Completed, undefined],
        [CHARGE.name, 'perform', StepRunOutcome.Failed, expect.any(String)],
        [RESERVE.name, 'compensate', StepRunOutcome.Completed, undefined],
      ],
    );
    expect(detail.operatorLog).toEqual([]);
    const ledger = await system.ledger(ids.permFail);
    expect(ledger.effects.map((effect) => [effect.idempotencyKey, effect.undoneBy])).toEqual([
      [`${ids.permFail}:${RESERVE.name}`, `${ids.permFail}:${RESERVE.compensation.name}`],
    ]);
  });
});

describe('inspect of a recovered order (STALL-ONCE: the first payment call gets no answer in time)', () => {
  it("shows every attempt's step runs: an attempt's ChargePayment timed out, a later one's completed", async () => {
    const detail = await waitUntil(
      'the order Processed',
      () => look(ids.stalled),
      (answer) => answer.processState === ProcessState.Processed,
      scenarioTimeoutMs.recovery,
    );
    // The state record keeps only the latest run of each step: Completed.
    expect(detail.steps.find((step) => step.name === CHARGE.name)?.status).toBe(StepStatus.Completed);
    expect(detail.attempts.map((attempt) => attempt.stepRunsRead)).toEqual(
      detail.attempts.map(() => StepRunsRead.All),
    );
    // Attempt 1 when the machine keeps up; under load an earlier call may time out first (as the
    // console test allows), so the timed-out payment call is looked for, not assumed at attempt 1.
    const chargeRuns = detail.attempts.flatMap((attempt) =>
      attempt.stepRuns
        .filter((run) => run.step === CHARGE.name && run.action === 'perform')
        .map((run) => ({ attempt: attempt.attempt, ...run })),
    );
    const timedOut = chargeRuns.find((run) => run.outcome === StepRunOutcome.TimedOut);
    const completed = chargeRuns.find((run) => run.outcome === StepRunOutcome.Completed);
    expect(timedOut?.error).toMatch(/^States\.(Heartbeat)?Timeout$/);
    expect(completed?.attempt).toBeGreaterThan(timedOut?.attempt ?? Number.POSITIVE_INFINITY);
    // The attempt that Processed the order ran its last step to completion.
    expect(detail.attempts.at(-1)?.stepRuns.at(-1)).toMatchObject({
      step: V1_STEPS.at(-1)?.name,
      action: 'perform',
      outcome: StepRunOutcome.Completed,
    });
  });
});

describe('cancel', () => {
  it('of a Processed order undoes every step, each effect exactly once, in reverse order', async () => {
    await system.waitForState(ids.processed, [ProcessState.Processed], scenarioTimeoutMs.normal);
    const seen = await look(ids.processed);
    const answer = await operator.act('cancel', ids.processed, {
      reason: 'customer withdrew the order',
      expectedState: seen.processState,
      expectedUpdatedAt: seen.updatedAt,
    });
    expect(answer).toMatchObject({
      status: 200,
      body: { orderId: ids.processed, action: 'cancel', processState: ProcessState.CompensationInProgress },
    });

    const state = await system.waitForState(
      ids.processed,
      [ProcessState.Compensated],
      scenarioTimeoutMs.recovery,
    );
    expect(Object.values(state.steps)).toEqual(V1_STEPS.map(() => StepStatus.Compensated));
    const ledger = await system.ledger(ids.processed);
    expect(ledger.effects).toHaveLength(V1_STEPS.length);
    for (const step of V1_STEPS) {
      const key = `${ids.processed}:${step.name}`;
      const compensationKey = `${ids.processed}:${step.compensation.name}`;
      expect(ledger.effects.filter((effect) => effect.idempotencyKey === key)).toEqual([
        expect.objectContaining({ undoneBy: compensationKey, undoneAt: expect.any(String) }),
      ]);
      expect(ledger.undos.filter((undo) => undo.undoes === key)).toEqual([
        expect.objectContaining({ idempotencyKey: compensationKey, undone: true }),
      ]);
    }
    const undoOrder = [...ledger.effects]
      .sort((left, right) => String(left.undoneAt).localeCompare(String(right.undoneAt)))
      .map((effect) => effect.idempotencyKey);
    expect(undoOrder).toEqual([...V1_STEPS].reverse().map((step) => `${ids.processed}:${step.name}`));

    const detail = await look(ids.processed);
    expect(detail.operatorLog).toEqual([
      expect.objectContaining({
        action: 'cancel',
        by: system.operatorArn ?? expect.any(String),
        reason: 'customer withdrew the order',
        seenState: ProcessState.Processed,
        newState: ProcessState.CompensationInProgress,
      }),
    ]);
  });

  it('of a Processing order (its first attempt stalled on payment) is refused with 409 NotAllowed', async () => {
    const id = orderId('stall');
    expect((await system.submit(order(id, 'STALL-ONCE'))).status).toBe(202);
    const running = await waitUntil(
      'the first attempt running ChargePayment',
      () => look(id),
      (detail) =>
        detail.processState === ProcessState.Processing &&
        detail.attempt === 1 &&
        detail.steps.some((step) => step.name === CHARGE.name && step.status === StepStatus.Running),
      scenarioTimeoutMs.normal,
    );
    const answer = await operator.act('cancel', id, {
      reason: 'too slow',
      expectedState: running.processState,
      expectedUpdatedAt: running.updatedAt,
    });
    expect(answer.status).toBe(409);
    expect(answer.body as unknown as OperatorRefusalBody).toMatchObject({
      refusal: 'NotAllowed',
      currentState: ProcessState.Processing,
      message: expect.stringContaining('wait until it settles'),
    });
    expect((await look(id)).operatorLog).toEqual([]);
  });
});

describe('retry of an Error order (OUTAGE: payment unavailable until the outage ends)', () => {
  it(
    'reaches Error after maxFailures attempts; a stale retry is 409 StateChanged; after the outage a retry processes it with the failures reset and logged',
    async () => {
      const failed = await system.waitForState(
        ids.outage,
        [ProcessState.Error, ProcessState.Processed],
        UNTIL_ERROR_MS,
      );
      expect(failed.processState).toBe(ProcessState.Error);
      const seen = await look(ids.outage);
      expect(seen.failureCount).toBeGreaterThan(0);
      expect(seen.steps.find((step) => step.name === RESERVE.name)?.status).toBe(StepStatus.Completed);

      const stale = await operator.act('retry', ids.outage, {
        reason: 'retry from an old screen',
        expectedState: ProcessState.Error,
        expectedUpdatedAt: new Date(Date.parse(seen.updatedAt) - 60_000).toISOString(),
      });
      expect(stale.status).toBe(409);
      expect(stale.body as unknown as OperatorRefusalBody).toMatchObject({
        refusal: 'StateChanged',
        currentState: ProcessState.Error,
        currentUpdatedAt: seen.updatedAt,
      });

      await system.endOutage(CHARGE.service, `${ids.outage}:${CHARGE.name}`);
      const retried = await operator.act('retry', ids.outage, {
        reason: 'payment provider is back',
        expectedState: seen.processState,
        expectedUpdatedAt: seen.updatedAt,
      });
      expect(retried).toMatchObject({
        status: 200,
        body: { action: 'retry', processState: ProcessState.Pending },
      });

      const done = await system.waitForState(
        ids.outage,
        [ProcessState.Processed, ProcessState.Error],
        scenarioTimeoutMs.normal,
      );
      expect(done).toMatchObject({ processState: ProcessState.Processed, failureCount: 0 });
      expect(Object.values(done.steps)).toEqual(V1_STEPS.map(() => StepStatus.Completed));
      const detail = await look(ids.outage);
      expect(detail.operatorLog).toEqual([
        {
          action: 'retry',
          by: system.operatorArn ?? expect.any(String),
          reason: 'payment provider is back',
          at: retried.body.updatedAt,
          seenState: ProcessState.Error,
          seenUpdatedAt: seen.updatedAt,
          newState: ProcessState.Pending,
          resetFailureCount: seen.failureCount,
        },
      ]);
      // One effect per step: the completed reservation was not redone, the charge happened once.
      const ledger = await system.ledger(ids.outage);
      expect(ledger.effects.map((effect) => effect.idempotencyKey).sort()).toEqual(
        V1_STEPS.map((step) => `${ids.outage}:${step.name}`).sort(),
      );
    },
    UNTIL_ERROR_MS + scenarioTimeoutMs.normal + 30_000,
  );
});

describe('the CLI (npm run orders -- ops ...)', () => {
  const run = promisify(execFile);
  const root = resolve(__dirname, '../../..');
  /** The CLI against this target: the local runtime's file, or on AWS the API with the credential chain. */
  const cli = (...args: string[]) => {
    const target = acceptanceTarget();
    const where =
      target.kind === 'aws'
        ? ['--api', target.outputs.ApiUrl]
        : ['--target', String(process.env[TARGET_ENV])];
    return run(process.execPath, [require.resolve('tsx/cli'), 'bin/orders.ts', 'ops', ...args, ...where], {
      cwd: root,
      env: process.env,
    });
  };

  it('lists and shows an order through the signed routes', async () => {
    await system.waitForState(ids.permFail, [ProcessState.Compensated], scenarioTimeoutMs.normal);
    const list = await cli('list', '--state', ProcessState.Compensated, '--limit', '100');
    expect(list.stdout).toMatch(/ORDER\s+STATE/);
    expect(list.stdout).toContain(ids.permFail);
    const show = await cli('show', ids.permFail);
    expect(JSON.parse(show.stdout)).toMatchObject({
      orderId: ids.permFail,
      processState: ProcessState.Compensated,
    });
  });
});
