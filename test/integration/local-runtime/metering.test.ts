/**
 * The runtime's meter (lib/local-runtime/metering.ts) on a fixture app whose every billable call is
 * known (fixtures/metering-app.ts): one POST, then the work it sets off, counted exactly per
 * resource, as AWS bills it. Durations are the one thing a local run cannot fix: only their sign
 * and the memory sizes they are priced at are checked.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type LocalRuntime,
  PUBLISHED_BY_API,
  type RuntimeUsage,
  STEP_FUNCTIONS_CALLER,
  startLocalRuntime,
  usageSince,
} from '../../../lib/local-runtime';
import { METERING_STACK, synthesizeMeteringApp } from './fixtures/metering-app';

jest.setTimeout(120_000);

describe('metering of the local runtime', () => {
  let workDir: string;
  let runtime: LocalRuntime;
  let usage: RuntimeUsage;
  let intakeAnswer: Record<string, unknown>;
  /** Physical names, as the runtime names them (stack name, construct id, hash). */
  let name: (section: keyof RuntimeUsage, logicalIdPrefix: string) => string;

  beforeAll(async () => {
    workDir = mkdtempSync(join(tmpdir(), 'metering-it-'));
    runtime = await startLocalRuntime({
      assemblyDir: synthesizeMeteringApp(workDir),
      port: 0,
      targetFile: null,
      metering: true,
      log: () => {},
    });
    const before = runtime.usage();
    const post = (headers: Record<string, string>) =>
      fetch(`${runtime.target.outputs.ApiUrl}items`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ id: 'item-1' }),
      });
    // Refused before the method (no API key): not billed, not counted.
    expect((await post({})).status).toBe(403);
    const answer = await post({ 'x-api-key': runtime.target.apis?.[METERING_STACK]?.apiKeys[0] ?? '' });
    intakeAnswer = (await answer.json()) as Record<string, unknown>;
    // The work the POST set off ends with the worker's read and the state machine's last state.
    const deadline = Date.now() + 30_000;
    for (;;) {
      const now = usageSince(before, runtime.usage());
      const done =
        Object.values(now.stateMachines).some((machine) => machine.transitionsByState.Done === 1) &&
        Object.values(now.functions).some((fn) => fn.logicalId?.startsWith('Worker') && fn.invocations === 1);
      if (done) break;
      if (Date.now() > deadline) throw new Error(`the fixture's work did not finish: ${JSON.stringify(now)}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    // Let the event source mapping delete the message it handled.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    usage = usageSince(before, runtime.usage());
    name = (section, prefix) => {
      const found = Object.entries(usage[section]).find(([, resource]) =>
        resource.logicalId?.startsWith(prefix),
      );
      if (!found)
        throw new Error(`no ${section} entry for ${prefix}: ${Object.keys(usage[section]).join(', ')}`);
      return found[0];
    };
  });

  afterAll(async () => {
    await runtime?.stop();
    rmSync(workDir, { recursive: true, force: true });
  });

  it('counts every state entered and every retry as a transition, per state', () => {
    const machine = usage.stateMachines[name('stateMachines', 'Flow')];
    expect(machine).toMatchObject({ stackName: METERING_STACK, executions: 1, transitions: 5 });
    expect(machine?.transitionsByState).toEqual({ Prepare: 1, Record: 1, Call: 2, Done: 1 });
  });

  it('counts invocations and billed time per function at the memory size of its template', () => {
    const expected = { Intake: [512, 1], Worker: [128, 1], Flaky: [256, 2] } as const;
    for (const [logicalId, [memorySizeMb, invocations]] of Object.entries(expected)) {
      const fn = usage.functions[name('functions', logicalId)];
      expect(fn).toMatchObject({ stackName: METERING_STACK, memorySizeMb, invocations });
      expect(fn?.billedMillis).toBeGreaterThanOrEqual(invocations);
    }
  });

  it('counts DynamoDB request units per table, operation and caller, with AWS minimums', () => {
    const items = usage.tables[name('tables', 'Items')];
    const audit = usage.tables[name('tables', 'Audit')];
    const intake = name('functions', 'Intake');
    const worker = name('functions', 'Worker');
    // Items (small items, one index): the put writes table + index (2); the refused conditional put
    // is charged AWS's minimum (1); the Query finding nothing AWS's minimum read (0.5); the
    // transaction's update 2 x (table + index) = 4; Step Functions' update 2; the worker's read 0.5.
    expect(items).toMatchObject({ requests: 6, readUnits: 1, writeUnits: 9, cancelledTransactions: 0 });
    expect(items?.minimums).toEqual({
      emptyReads: 1,
      readUnits: 0.5,
      conditionalCheckFailures: 1,
      writeUnits: 1,
    });
    expect(items?.byOperation).toEqual({
      PutItem: { requests: 2, readUnits: 0, writeUnits: 3 },
      Query: { requests: 1, readUnits: 0.5, writeUnits: 0 },
      TransactWriteItems: { requests: 1, readUnits: 0, writeUnits: 4 },
      UpdateItem: { requests: 1, readUnits: 0, writeUnits: 2 },
      GetItem: { requests: 1, readUnits: 0.5, writeUnits: 0 },
    });
    expect(items?.byCaller).toEqual({
      [intake]: { requests: 4, readUnits: 0.5, writeUnits: 7 },
      [STEP_FUNCTIONS_CALLER]: { requests: 1, readUnits: 0, writeUnits: 2 },
      [worker]: { requests: 1, readUnits: 0.5, writeUnits: 0 },
    });
    // Each index's share (ReturnConsumedCapacity INDEXES): ByKind projects everything, so each of
    // those writes puts its entry too (1 of the put's 2, 2 of the transaction's 4, 1 of Step
    // Functions' 2); the refused put and the Query that found nothing spent nothing on it.
    expect(items?.byIndex).toEqual({ ByKind: { readUnits: 0, writeUnits: 4 } });
    expect(items?.writesByCaller).toEqual({
      [intake]: { requests: 3, writeUnits: 7, byIndex: { ByKind: 3 } },
      [STEP_FUNCTIONS_CALLER]: { requests: 1, writeUnits: 2, byIndex: { ByKind: 1 } },
    });
    // Audit: a strongly consistent read of a missing item (1); the transaction's put, 2 x 1.
    expect(audit).toMatchObject({ requests: 2, readUnits: 1, writeUnits: 2 });
    expect(audit?.byCaller).toEqual({ [intake]: { requests: 2, readUnits: 1, writeUnits: 2 } });
  });

  it('answers each caller as DynamoDB does: capacity only to a caller that asked for it', () => {
    expect(intakeAnswer).toEqual({ conditionFailed: true, unaskedCapacitySeen: false, askedCapacity: 1 });
  });

  it('counts SQS calls per queue and action, a 70 KB payload as two billed requests', () => {
    const work = usage.queues[name('queues', 'Work')];
    const actions = work?.requestsByAction ?? {};
    expect(actions.SendMessage).toBe(1);
    expect((actions.ReceiveMessage ?? 0) - (work?.emptyReceives ?? 0)).toBe(1);
    expect(actions.DeleteMessageBatch).toBe(1);
    expect(work?.requests).toBe(Object.values(actions).reduce((sum, count) => sum + count, 0));
    // The send and the receive carrying the 70 KB message are two 64 KB chunks each.
    expect(work?.billedRequests).toBe((work?.requests ?? 0) + 2);
  });

  it('counts API requests that reached a method, events put per bus and publishes per topic', () => {
    // The POST refused for its missing API key is not counted; the one with its key is.
    expect(usage.apis[name('apis', 'Api')]).toMatchObject({ stackName: METERING_STACK, requests: 1 });
    expect(usage.buses[name('buses', 'Bus')]).toMatchObject({ events: 2, billedEvents: 2 });
    expect(usage.topics[name('topics', 'Topic')]).toMatchObject({
      publishes: 1,
      billedRequests: 1,
      publishesBy: { [PUBLISHED_BY_API]: { requests: 1, billedRequests: 1 } },
    });
    // The topic's delivery to its queue: a SendMessage, and who delivered it.
    expect(usage.queues[name('queues', 'Inbox')]).toMatchObject({
      requests: 1,
      requestsByAction: { SendMessage: 1 },
      deliveriesBy: { SNS: { requests: 1, billedRequests: 1 } },
    });
  });
});
