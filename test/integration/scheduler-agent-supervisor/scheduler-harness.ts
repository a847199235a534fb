/**
 * The real scheduler state machine, synthesized from the CDK stack (profile local), registered with
 * the local Step Functions runtime against DynamoDB Local and the runtime's SQS service. A scripted
 * agent answers the agent queues through the real SFN API, the way the agent Lambda does: each
 * test sets, per order, what its agent does with a request. Shared by the scheduler's integration
 * tests (scheduler-definition.test.ts, compensation.test.ts).
 */
import {
  type AttributeValue,
  CreateTableCommand,
  GetItemCommand,
  PutItemCommand,
} from '@aws-sdk/client-dynamodb';
import { SendTaskSuccessCommand, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { DeleteMessageCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { App, type CfnElement, type Stack } from 'aws-cdk-lib';
import {
  type AgentRequest,
  AgentRequestSchema,
  DEFAULT_WORKFLOW_VERSION,
  STATE_SCHEMA_VERSION,
  type StepName,
  workflowSteps,
} from '../../../lambdas/scheduler-agent-supervisor/contracts';
import { remoteServicesDownstream } from '../../../lib/fakes/remote-services';
import type { PutEventsEntry } from '../../../lib/local-runtime/stepfunctions';
import { loadConfig } from '../../../lib/scheduler-agent-supervisor/config';
import { addSchedulerAgentSupervisor } from '../../../lib/scheduler-agent-supervisor/deployment';
import { STACK_NAME } from '../../../lib/scheduler-agent-supervisor/stack';
import { testOutdir } from '../../support/cdk-outdir';
import { TEST_REGION } from '../../support/emulators';
import {
  createQueue,
  createTable,
  type SfnHarness,
  startSfnHarness,
  waitForEnd,
} from '../local-runtime/stepfunctions/harness';

/** The steps of an order on the default workflow version (what these tests deploy). */
const V1_STEPS = workflowSteps(DEFAULT_WORKFLOW_VERSION);

export const config = loadConfig('local');
const { stepTimeoutSeconds } = config.timings;
export const STATE_TABLE = 'local-state';
export const ORDERS_TABLE = 'local-orders';
const ALERT_BUS = 'local-alerts';
export const ALERT_BUS_ARN = `arn:aws:events:${TEST_REGION}:000000000000:event-bus/${ALERT_BUS}`;

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

export type Item = Record<string, AttributeValue>;
export type AgentBehaviour = (request: AgentRequest) => Promise<void>;

/** What a seeded step looks like: its status, and (for a done step) its compensation log entry. */
export interface SeededStep {
  readonly status: string;
  /** Status of its compensation log entry; none when absent. */
  readonly log?: string;
  readonly uncertain?: boolean;
}

export interface SeedOptions {
  readonly attempt: number;
  /** @default 'Processing' */
  readonly processState?: string;
  /** @default true (the lock of `<orderId>--attempt-<attempt>`) */
  readonly locked?: boolean;
  /** @default every step NotStarted, no log entry */
  readonly steps?: Partial<Record<StepName, SeededStep>>;
  /** Distance between consecutive planned deadlines. @default a step window */
  readonly planOffsetMillis?: number;
  readonly compensationFailureCount?: number;
}

export interface SchedulerHarness {
  readonly h: SfnHarness;
  readonly stateMachineArn: string;
  /** Every PutEvents call the state machine made (alert bus). */
  readonly alerts: PutEventsEntry[][];
  /** The scripted agent, by orderId. */
  readonly agents: Map<string, AgentBehaviour>;
  /** Every agent request received, by orderId, in order. */
  readonly received: Map<string, AgentRequest[]>;
  /** Requests for orders without a scripted agent. */
  readonly unexpected: string[];
  /** Answers a request with success (compensations answer `undone: true`). */
  readonly succeed: AgentBehaviour;
  seed(orderId: string, options: SeedOptions): Promise<string>;
  record(orderId: string): Promise<Item>;
  start(orderId: string, instanceId: string, attempt: number): ReturnType<typeof waitForEnd>;
  stop(): Promise<void>;
}

export async function startSchedulerHarness(): Promise<SchedulerHarness> {
  const alerts: PutEventsEntry[][] = [];
  const h = await startSfnHarness({
    putEvents: async (entries) => {
      alerts.push([...entries]);
      return {
        FailedEntryCount: 0,
        Entries: entries.map((_, index) => ({ EventId: `alert-${alerts.length}-${index}` })),
      };
    },
  });
  const queueUrls = new Map<StepName, string>();
  // Classic v1 current (v3 stays live): these tests drive the classic shape with scripted agents.
  const app = new App({
    outdir: testOutdir(),
    context: { profile: 'local', workflowVersion: '1', 'aws:cdk:bundling-stacks': [] },
  });
  const stack = addSchedulerAgentSupervisor(app, remoteServicesDownstream);
  const template = app.synth().getStackByName(STACK_NAME).template as {
    Resources: Record<string, { Type: string; Properties: Record<string, unknown> }>;
  };
  // The state table from the template's own key schema and indexes (the supervisor's and the
  // starter's adapters query the DueIndex), the orders table by its key.
  const stateTable = template.Resources[logicalId(stack, stack.stateStore.table)]?.Properties ?? {};
  await Promise.all([
    h.dynamodb.send(
      new CreateTableCommand({
        TableName: STATE_TABLE,
        AttributeDefinitions: stateTable.AttributeDefinitions,
        KeySchema: stateTable.KeySchema,
        BillingMode: stateTable.BillingMode,
        GlobalSecondaryIndexes: stateTable.GlobalSecondaryIndexes,
      } as ConstructorParameters<typeof CreateTableCommand>[0]),
    ),
    createTable(h.dynamodb, ORDERS_TABLE),
  ]);
  for (const step of V1_STEPS) queueUrls.set(step.name, await createQueue(h.sqs, `${step.name}-requests`));
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
  const stateMachineArn = h.sfn.stateMachineArnFor('Scheduler');
  h.sfn.registerStateMachine(stateMachineArn, 'Scheduler', definition);

  const agents = new Map<string, AgentBehaviour>();
  const received = new Map<string, AgentRequest[]>();
  const unexpected: string[] = [];
  let polling = true;
  // The scripted agent: one long-poll loop per queue, dispatching by orderId.
  const pollers = V1_STEPS.map(async (step) => {
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

  const succeed: AgentBehaviour = async (request) => {
    await h.client.send(
      new SendTaskSuccessCommand({
        taskToken: request.taskToken,
        output: JSON.stringify({
          confirmationId: `${request.action === 'compensate' ? 'undo' : 'conf'}-${request.step}`,
          service: request.step,
          idempotencyKey: request.idempotencyKey,
          ...(request.action === 'compensate' && { undone: true }),
        }),
      }),
    );
  };

  async function seed(orderId: string, options: SeedOptions): Promise<string> {
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
    const log: Record<string, AttributeValue> = {};
    const plan: Record<string, AttributeValue> = {};
    let k = 0;
    V1_STEPS.forEach((step, index) => {
      const seeded = options.steps?.[step.name] ?? { status: 'NotStarted' };
      const done = seeded.status === 'Completed';
      steps[step.name] = {
        M: {
          Status: { S: seeded.status },
          ...(done && {
            CompletedAt: { S: 'earlier' },
            Result: { M: { ConfirmationId: { S: 'from-attempt-1' } } },
          }),
        },
      };
      if (seeded.log !== undefined) {
        log[step.name] = {
          M: {
            Seq: { N: String(index + 1) },
            Compensation: { S: step.compensation.name },
            Undoes: { S: `${orderId}:${step.name}` },
            ...(seeded.uncertain
              ? { Uncertain: { BOOL: true } }
              : { ConfirmationId: { S: 'from-attempt-1' } }),
            Status: { S: seeded.log },
            RecordedAt: { S: 'earlier' },
          },
        };
      }
      if (!done) k += 1;
      plan[step.name] = { N: String(done ? now : now + k * planOffset) };
    });
    // Compensation deadlines after the steps', in the order they run (as the starter plans them).
    [...V1_STEPS].reverse().forEach((step, index) => {
      plan[step.compensation.name] = { N: String(now + (k + index + 1) * planOffset) };
    });
    const instanceId = `${orderId}--attempt-${options.attempt}`;
    await h.dynamodb.send(
      new PutItemCommand({
        TableName: STATE_TABLE,
        Item: {
          OrderID: { S: orderId },
          ProcessState: { S: options.processState ?? 'Processing' },
          ...((options.locked ?? true) && { LockedBy: { S: instanceId } }),
          CompleteBy: { N: String(now + planOffset) },
          DueShard: { S: '0' },
          FailureCount: { N: String(Math.max(0, options.attempt - 1)) },
          CompensationFailureCount: { N: String(options.compensationFailureCount ?? 0) },
          Attempt: { N: String(options.attempt) },
          Steps: { M: steps },
          Plan: { M: plan },
          CompensationLog: { M: log },
          // As the claim leaves it: the alert-raising updates SET their entry inside it.
          AlertOutbox: { M: {} },
          OrderFingerprint: { S: 'fingerprint' },
          SchemaVersion: { N: String(STATE_SCHEMA_VERSION) },
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
    // Room for a step and its compensation to time out in one execution.
    return waitForEnd(h.client, started.executionArn ?? '', (2 * stepTimeoutSeconds + 10) * 1000);
  }

  return {
    h,
    stateMachineArn,
    alerts,
    agents,
    received,
    unexpected,
    succeed,
    seed,
    record,
    start,
    async stop() {
      polling = false;
      await Promise.all(pollers);
      await h.stop();
    },
  };
}

export const stepStatus = (item: Item, step: StepName): string | undefined =>
  item.Steps?.M?.[step]?.M?.Status?.S;
export const logStatus = (item: Item, step: StepName): string | undefined =>
  item.CompensationLog?.M?.[step]?.M?.Status?.S;
