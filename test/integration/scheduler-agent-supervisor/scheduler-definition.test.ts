/**
 * The real scheduler state machine, synthesized from the CDK stack (profile local), run by the
 * local Step Functions runtime against DynamoDB Local and the runtime's SQS service. A scripted agent answers the
 * agent queues through the real SFN API, the way the agent Lambda does.
 */
import { type AttributeValue, GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import {
  SendTaskFailureCommand,
  SendTaskHeartbeatCommand,
  SendTaskSuccessCommand,
  StartExecutionCommand,
} from '@aws-sdk/client-sfn';
import { DeleteMessageCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { App, type CfnElement, type Stack } from 'aws-cdk-lib';
import {
  AgentError,
  type AgentRequest,
  AgentRequestSchema,
  ORDER_STEPS,
  type StepName,
} from '../../../lambdas/scheduler-agent-supervisor/contracts';
import { remoteServicesDownstream } from '../../../lib/fakes/remote-services';
import type { PutEventsEntry } from '../../../lib/local-runtime/stepfunctions';
import { loadConfig } from '../../../lib/scheduler-agent-supervisor/config';
import { addSchedulerAgentSupervisor } from '../../../lib/scheduler-agent-supervisor/deployment';
import { STACK_NAME } from '../../../lib/scheduler-agent-supervisor/stack';
import { TEST_REGION } from '../../support/emulators';
import {
  createQueue,
  createTable,
  type SfnHarness,
  startSfnHarness,
  waitForEnd,
} from '../local-runtime/stepfunctions/harness';

const config = loadConfig('local');
const { stepTimeoutSeconds, stepHeartbeatSeconds } = config.timings;
const STATE_TABLE = 'local-state';
const ORDERS_TABLE = 'local-orders';
const ALERT_BUS = 'local-alerts';
const ALERT_BUS_ARN = `arn:aws:events:${TEST_REGION}:000000000000:event-bus/${ALERT_BUS}`;

type CfnValue = string | { readonly Ref?: string; readonly 'Fn::GetAtt'?: readonly [string, string] };

/** Renders the synthesized DefinitionString (a string or an Fn::Join of Refs) with local names. */
function renderDefinition(definition: unknown, refs: Readonly<Record<string, string>>): string {
  if (typeof definition === 'string') return definition;
  const join = (definition as { 'Fn::Join'?: [string, CfnValue[]] })['Fn::Join'];
  if (!join)
    throw new Error(`Unexpected DefinitionString shape: ${JSON.stringify(definition).slice(0, 200)}`);
  const pseudo: Record<string, string> = {
    'AWS::Partition': 'aws',
    'AWS::Region': TEST_REGION,
    'AWS::AccountId': '000000000000',
    'AWS::URLSuffix': 'amazonaws.com',
  };
  return join[1]
    .map((part) => {
      if (typeof part === 'string') return part;
      const key = part.Ref ?? (part['Fn::GetAtt'] ? part['Fn::GetAtt'].join('.') : undefined);
      const value = key === undefined ? undefined : (pseudo[key] ?? refs[key]);
      if (value === undefined)
        throw new Error(`No local value for ${JSON.stringify(part)} in the scheduler definition`);
      return value;
    })
    .join(join[0]);
}

function logicalId(stack: Stack, construct: { node: { defaultChild?: unknown } }): string {
  return stack.getLogicalId(construct.node.defaultChild as CfnElement);
}

type Item = Record<string, AttributeValue>;
type AgentBehaviour = (request: AgentRequest) => Promise<void>;

describe('the synthesized scheduler state machine on the local runtime', () => {
  let h: SfnHarness;
  let stateMachineArn: string;
  const queueUrls = new Map<StepName, string>();
  const alerts: PutEventsEntry[][] = [];
  const agents = new Map<string, AgentBehaviour>();
  const received = new Map<string, AgentRequest[]>();
  const unexpected: string[] = [];
  let polling = true;
  let pollers: Promise<void>[] = [];

  beforeAll(async () => {
    h = await startSfnHarness({
      putEvents: async (entries) => {
        alerts.push([...entries]);
        return {
          FailedEntryCount: 0,
          Entries: entries.map((_, index) => ({ EventId: `alert-${alerts.length}-${index}` })),
        };
      },
    });
    await Promise.all([createTable(h.dynamodb, STATE_TABLE), createTable(h.dynamodb, ORDERS_TABLE)]);
    for (const step of ORDER_STEPS)
      queueUrls.set(step.name, await createQueue(h.sqs, `${step.name}-requests`));

    const app = new App({ context: { profile: 'local', 'aws:cdk:bundling-stacks': [] } });
    const stack = addSchedulerAgentSupervisor(app, remoteServicesDownstream);
    const template = app.synth().getStackByName(STACK_NAME).template as {
      Resources: Record<string, { Type: string; Properties: Record<string, unknown> }>;
    };
    const refs: Record<string, string> = {
      [logicalId(stack, stack.stateStore.table)]: STATE_TABLE,
      [logicalId(stack, stack.ordersDatabase.table)]: ORDERS_TABLE,
      [logicalId(stack, stack.alerts.bus)]: ALERT_BUS,
      [`${logicalId(stack, stack.alerts.bus)}.Arn`]: ALERT_BUS_ARN,
    };
    for (const agent of stack.agents) {
      refs[logicalId(stack, agent.requestQueue)] = queueUrls.get(agent.step.name as StepName) ?? '';
    }
    const machineId = logicalId(stack, stack.workflow.stateMachine);
    const definition = renderDefinition(template.Resources[machineId]?.Properties.DefinitionString, refs);
    stateMachineArn = h.sfn.stateMachineArnFor('Scheduler');
    h.sfn.registerStateMachine(stateMachineArn, 'Scheduler', definition);

    // The scripted agent: one long-poll loop per queue, dispatching by orderId.
    pollers = ORDER_STEPS.map(async (step) => {
      const queueUrl = queueUrls.get(step.name) ?? '';
      while (polling) {
        const got = await h.sqs.send(
          new ReceiveMessageCommand({ QueueUrl: queueUrl, WaitTimeSeconds: 1, MaxNumberOfMessages: 10 }),
        );
        for (const message of got.Messages ?? []) {
          await h.sqs.send(
            new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: message.ReceiptHandle }),
          );
          const request = AgentRequestSchema.parse(JSON.parse(message.Body ?? ''));
          received.set(request.orderId, [...(received.get(request.orderId) ?? []), request]);
          const behaviour = agents.get(request.orderId);
          if (behaviour) void behaviour(request);
          else unexpected.push(`${step.name} request for ${request.orderId}`);
        }
      }
    });
  }, 120_000);

  afterAll(async () => {
    polling = false;
    await Promise.all(pollers);
    await h.stop();
  });

  afterEach(() => {
    expect(unexpected).toEqual([]);
  });

  const succeed: AgentBehaviour = async (request) => {
    await h.client.send(
      new SendTaskSuccessCommand({
        taskToken: request.taskToken,
        output: JSON.stringify({
          confirmationId: `conf-${request.step}`,
          service: request.step,
          idempotencyKey: request.idempotencyKey,
        }),
      }),
    );
  };

  async function seed(
    orderId: string,
    options: { attempt: number; completed?: readonly StepName[]; planOffsetMillis?: number },
  ) {
    const now = Date.now();
    const planOffset = options.planOffsetMillis ?? (stepTimeoutSeconds + 2) * 1000;
    await h.dynamodb.send(
      new PutItemCommand({
        TableName: ORDERS_TABLE,
        Item: {
          OrderID: { S: orderId },
          CustomerId: { S: 'customer-1' },
          Items: { S: JSON.stringify([{ sku: 'SKU-1', quantity: 2 }]) },
          TotalCents: { N: '1999' },
          Currency: { S: 'EUR' },
          OrderFingerprint: { S: 'fingerprint' },
          CreatedAt: { S: new Date(now).toISOString() },
        },
      }),
    );
    const steps: Record<string, AttributeValue> = {};
    const plan: Record<string, AttributeValue> = {};
    let k = 0;
    for (const step of ORDER_STEPS) {
      const done = options.completed?.includes(step.name) ?? false;
      steps[step.name] = {
        M: done
          ? {
              Status: { S: 'Completed' },
              CompletedAt: { S: 'earlier' },
              Result: { M: { ConfirmationId: { S: 'from-attempt-1' } } },
            }
          : { Status: { S: 'NotStarted' } },
      };
      if (!done) k += 1;
      plan[step.name] = { N: String(done ? now : now + k * planOffset) };
    }
    const instanceId = `${orderId}--attempt-${options.attempt}`;
    await h.dynamodb.send(
      new PutItemCommand({
        TableName: STATE_TABLE,
        Item: {
          OrderID: { S: orderId },
          ProcessState: { S: 'Processing' },
          LockedBy: { S: instanceId },
          CompleteBy: { N: String(now + planOffset) },
          DueShard: { S: '0' },
          FailureCount: { N: String(options.attempt - 1) },
          Attempt: { N: String(options.attempt) },
          Steps: { M: steps },
          Plan: { M: plan },
          OrderFingerprint: { S: 'fingerprint' },
          SchemaVersion: { N: '1' },
          WorkflowVersion: { N: '1' },
          CreatedAt: { S: new Date(now).toISOString() },
          UpdatedAt: { S: new Date(now).toISOString() },
        },
      }),
    );
    return instanceId;
  }

  async function record(orderId: string): Promise<Item> {
    const got = await h.dynamodb.send(
      new GetItemCommand({ TableName: STATE_TABLE, Key: { OrderID: { S: orderId } }, ConsistentRead: true }),
    );
    if (!got.Item) throw new Error(`No state record for ${orderId}`);
    return got.Item;
  }

  async function start(orderId: string, instanceId: string, attempt: number) {
    const input = JSON.stringify({
      orderId,
      instanceId,
      attempt,
      correlationId: `corr-${orderId}`,
      workflowVersion: 1,
    });
    const started = await h.client.send(
      new StartExecutionCommand({ stateMachineArn, name: instanceId, input }),
    );
    return waitForEnd(h.client, started.executionArn ?? '', (stepTimeoutSeconds + 10) * 1000);
  }

  const stepStatus = (item: Item, step: StepName) => item.Steps?.M?.[step]?.M?.Status?.S;

  it('runs every step through the agents and ends Processed, unlocked and out of the index', async () => {
    const instanceId = await seed('order-happy', { attempt: 1 });
    agents.set('order-happy', succeed);
    const ended = await start('order-happy', instanceId, 1);
    expect(ended.status).toBe('SUCCEEDED');

    const item = await record('order-happy');
    expect(item.ProcessState).toEqual({ S: 'Processed' });
    expect(item.LockedBy).toBeUndefined();
    expect(item.DueShard).toBeUndefined();
    for (const step of ORDER_STEPS) {
      expect(stepStatus(item, step.name)).toBe('Completed');
      expect(item.Steps?.M?.[step.name]?.M?.Result).toEqual({
        M: { ConfirmationId: { S: `conf-${step.name}` } },
      });
    }
    const requests = received.get('order-happy') ?? [];
    expect(requests.map((request) => request.step)).toEqual(ORDER_STEPS.map((step) => step.name));
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

  it('a permanent agent failure sets Error with LastError and raises one OrderFailed alert', async () => {
    const instanceId = await seed('order-perm', { attempt: 1 });
    alerts.length = 0;
    agents.set('order-perm', async (request) => {
      if (request.step === 'ChargePayment') {
        await h.client.send(
          new SendTaskFailureCommand({
            taskToken: request.taskToken,
            error: AgentError.Permanent,
            cause: '422 card declined',
          }),
        );
      } else {
        await succeed(request);
      }
    });
    const ended = await start('order-perm', instanceId, 1);
    expect(ended).toMatchObject({ status: 'FAILED', error: 'OrderFailed' });

    const item = await record('order-perm');
    expect(item.ProcessState).toEqual({ S: 'Error' });
    expect(item.LockedBy).toBeUndefined();
    expect(item.DueShard).toBeUndefined();
    expect(item.LastError?.M?.Source).toEqual({ S: 'ChargePayment' });
    expect(item.LastError?.M?.Error).toEqual({ S: AgentError.Permanent });
    expect(stepStatus(item, 'ReserveInventory')).toBe('Completed');
    expect(stepStatus(item, 'ChargePayment')).toBe('Running');
    expect(stepStatus(item, 'ScheduleShipping')).toBe('NotStarted');

    expect(alerts).toHaveLength(1);
    const [entry] = alerts[0] ?? [];
    expect(entry).toMatchObject({
      EventBusName: ALERT_BUS_ARN,
      Source: 'order-processing',
      DetailType: 'OrderFailed',
    });
    expect(JSON.parse(entry?.Detail ?? '')).toMatchObject({
      orderId: 'order-perm',
      reason: 'AgentPermanentFailure',
      attempt: 1,
      instanceId,
      error: AgentError.Permanent,
    });
  });

  it('a silent or slow agent abandons the attempt and leaves the record Processing with an expired CompleteBy', async () => {
    // Short plans, so each CompleteBy has passed when the attempt is abandoned.
    const silentId = await seed('order-silent', { attempt: 1, planOffsetMillis: 1_000 });
    const slowId = await seed('order-slow', { attempt: 1, planOffsetMillis: 1_000 });
    agents.set('order-silent', async () => undefined);
    // Heartbeats keep the task alive, so only TimeoutSeconds can end it.
    agents.set('order-slow', async (request) => {
      const until = Date.now() + (stepTimeoutSeconds + 1) * 1000;
      while (Date.now() < until) {
        const beat = await h.client.send(new SendTaskHeartbeatCommand({ taskToken: request.taskToken })).then(
          () => true,
          () => false,
        );
        if (!beat) return;
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    });
    const before = Date.now();
    const [silent, slow] = await Promise.all([
      start('order-silent', silentId, 1),
      start('order-slow', slowId, 1),
    ]);
    const slowElapsed = Date.now() - before;

    expect(silent).toMatchObject({ status: 'FAILED', error: 'AttemptAbandoned' });
    expect(slow).toMatchObject({ status: 'FAILED', error: 'AttemptAbandoned' });
    expect(slowElapsed).toBeGreaterThanOrEqual(stepTimeoutSeconds * 1000);
    for (const [orderId, instanceId] of [
      ['order-silent', silentId],
      ['order-slow', slowId],
    ] as const) {
      const item = await record(orderId);
      expect(item.ProcessState).toEqual({ S: 'Processing' });
      expect(item.LockedBy).toEqual({ S: instanceId });
      expect(item.DueShard).toEqual({ S: '0' });
      expect(stepStatus(item, 'ReserveInventory')).toBe('Running');
      expect(Number(item.CompleteBy?.N)).toBe(Number(item.Plan?.M?.ReserveInventory?.N));
      expect(Number(item.CompleteBy?.N)).toBeLessThan(Date.now());
    }
  });

  it('an execution whose instanceId lost the lock is FencedOut and changes nothing', async () => {
    await seed('order-stale', { attempt: 2 });
    const before = await record('order-stale');
    agents.set('order-stale', succeed);
    const ended = await start('order-stale', 'order-stale--attempt-1', 1);
    expect(ended.status).toBe('SUCCEEDED');
    expect(await record('order-stale')).toEqual(before);
    expect(received.get('order-stale')).toBeUndefined();
  });

  it('a new attempt skips the steps an earlier attempt completed', async () => {
    const instanceId = await seed('order-resume', { attempt: 2, completed: ['ReserveInventory'] });
    agents.set('order-resume', succeed);
    const ended = await start('order-resume', instanceId, 2);
    expect(ended.status).toBe('SUCCEEDED');
    expect((received.get('order-resume') ?? []).map((request) => request.step)).toEqual([
      'ChargePayment',
      'ScheduleShipping',
    ]);
    const item = await record('order-resume');
    expect(item.ProcessState).toEqual({ S: 'Processed' });
    expect(item.Steps?.M?.ReserveInventory?.M?.Result).toEqual({
      M: { ConfirmationId: { S: 'from-attempt-1' } },
    });
    expect(stepStatus(item, 'ChargePayment')).toBe('Completed');
    expect(stepStatus(item, 'ScheduleShipping')).toBe('Completed');
  });
});
