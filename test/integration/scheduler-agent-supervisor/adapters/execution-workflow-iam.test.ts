/**
 * The workflow route's reads under IAM: SfnExecutionWorkflows over the real SFN client, signed as a
 * role whose policy is the OrderWorkflow function's own grant, taken from the synthesized template
 * (default profile) with its intrinsics resolved by the local runtime's resolver, against the local
 * Step Functions evaluating IAM as the runtime does (authorizeJsonRequest). The grant reads an
 * execution of its state machines; without DescribeStateMachineForExecution, or on another state
 * machine, it is refused.
 */
import { SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { SfnExecutionWorkflows } from '../../../../lambdas/scheduler-agent-supervisor/adapters/execution-workflow';
import { resolveIntrinsics } from '../../../../lib/local-runtime/assembly/intrinsics';
import { authorizeJsonRequest } from '../../../../lib/local-runtime/protocol/authorize-json-request';
import {
  type LocalStepFunctions,
  startLocalStepFunctions,
} from '../../../../lib/local-runtime/stepfunctions';
import {
  DEMO_CONTEXT,
  functionIdByService,
  statementsOfFunction,
  synthesizeStack,
} from '../../../infra/support/synth';
import {
  TEST_ACCOUNT,
  TEST_REGION,
  TEST_ROOT,
  type TestAccount,
  testAccount,
} from '../../../support/local-iam';
import { waitForEnd } from '../../local-runtime/stepfunctions/harness';

const definition = { StartAt: 'Only', States: { Only: { Type: 'Pass', End: true } } };

describe("the workflow route's reads under the OrderWorkflow function's own grant (local IAM)", () => {
  let account: TestAccount;
  let sfn: LocalStepFunctions;
  let root: SFNClient;
  /** The grant's statements (states:* only), resolved for this account and region. */
  let grant: unknown[];
  /** Logical id -> state machine ARN here (each live version's, registered under its logical id). */
  const machines = new Map<number, string>();
  const clients: SFNClient[] = [];

  beforeAll(async () => {
    const { template } = synthesizeStack('default', { context: DEMO_CONTEXT });
    const statements = statementsOfFunction(template, functionIdByService(template, 'operator-workflow'));
    account = testAccount('enforce');
    sfn = await startLocalStepFunctions({
      region: TEST_REGION,
      accountId: TEST_ACCOUNT,
      authorize: (checks, received) =>
        authorizeJsonRequest(account.iam, { region: TEST_REGION, service: 'states' }, received, checks),
    });
    const arnOf = (logicalId: string) => sfn.stateMachineArnFor(logicalId);
    grant = resolveIntrinsics(
      statements.filter((statement) => JSON.stringify(statement.Action).includes('states:')),
      {
        region: TEST_REGION,
        accountId: TEST_ACCOUNT,
        partition: 'aws',
        urlSuffix: 'amazonaws.com',
        stackName: 'SchedulerAgentSupervisor',
        ref: arnOf,
        getAtt: (logicalId) => arnOf(logicalId),
      },
    ) as unknown[];
    for (const version of [1, 3, 5]) {
      const [logicalId] = Object.keys(template.findResources('AWS::StepFunctions::StateMachine')).filter(
        (id) => id.startsWith(`OrderWorkflowV${version}StateMachine`),
      );
      const arn = arnOf(logicalId ?? '');
      sfn.registerStateMachine(arn, logicalId ?? '', JSON.stringify(definition));
      machines.set(version, arn);
    }
    root = client(TEST_ROOT);
    const other = sfn.stateMachineArnFor('SomeoneElsesMachine');
    sfn.registerStateMachine(other, 'SomeoneElsesMachine', JSON.stringify(definition));
    machines.set(99, other);
    for (const [, stateMachineArn] of machines) {
      const { executionArn = '' } = await root.send(
        new StartExecutionCommand({ stateMachineArn, name: 'order-1--attempt-1', input: '{}' }),
      );
      await waitForEnd(root, executionArn);
    }
  }, 60_000);
  afterAll(async () => {
    for (const each of clients) each.destroy();
    await sfn?.stop();
  });

  function client(credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string }) {
    const made = new SFNClient({ endpoint: sfn.endpoint, region: TEST_REGION, credentials, maxAttempts: 1 });
    clients.push(made);
    return made;
  }
  const bounds = { pageSize: 500, maxPages: 2 };

  it('reads the execution, its definition and its path of every live version', async () => {
    const role = account.role('OrderWorkflowRole', grant, { service: 'lambda.amazonaws.com' });
    const workflows = new SfnExecutionWorkflows(client(account.sdkCredentials(role)), machines);
    for (const version of [1, 3, 5]) {
      const execution = await workflows.workflow('order-1--attempt-1', version, bounds);
      expect(execution).toMatchObject({ status: 'SUCCEEDED', pathComplete: true });
      expect(JSON.parse(execution?.definition ?? '')).toEqual(definition);
      expect(execution?.path.map((state) => state.name)).toEqual(['Only']);
    }
  });

  it('is refused an execution of another state machine', async () => {
    const role = account.role('OrderWorkflowRoleElsewhere', grant, { service: 'lambda.amazonaws.com' });
    const workflows = new SfnExecutionWorkflows(client(account.sdkCredentials(role)), machines);
    await expect(workflows.workflow('order-1--attempt-1', 99, bounds)).rejects.toThrow(/not authorized/);
  });

  it('is refused without DescribeStateMachineForExecution: the grant is what lets it read the definition', async () => {
    const without = (grant as { Action: string | string[] }[]).map((statement) => ({
      ...statement,
      Action: [statement.Action]
        .flat()
        .filter((action) => action !== 'states:DescribeStateMachineForExecution'),
    }));
    const role = account.role('OrderWorkflowRoleWithout', without, { service: 'lambda.amazonaws.com' });
    const workflows = new SfnExecutionWorkflows(client(account.sdkCredentials(role)), machines);
    await expect(workflows.workflow('order-1--attempt-1', 5, bounds)).rejects.toThrow(
      /states:DescribeStateMachineForExecution/,
    );
  });
});
