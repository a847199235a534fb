/**
 * Step Functions: the local service (stepfunctions/) started when the assembly declares a state
 * machine, with its DynamoDB, SQS, EventBridge and Lambda integrations wired to the other
 * provisioners; one registered state machine per AWS::StepFunctions::StateMachine; deliveries to
 * state machine ARNs (StartExecution, for EventBridge targets). Functions reach the API through a
 * fault proxy when the stepFunctionsApi hook is set.
 *
 * IAM as on AWS: every API request is authenticated (SigV4, signing name `states`) and authorized
 * (../stepfunctions/iam-requests.ts; a denial is AccessDeniedException); a state machine whose role
 * does not trust states.amazonaws.com fails the start, as CreateStateMachine fails; every
 * integration call is made as a session of the state machine's role (DynamoDB and SQS through their
 * APIs with its credentials; EventBridge PutEvents and Lambda invocations authorized here), and a
 * refused one fails the task with the service's AccessDeniedException, as the execution sees it on
 * AWS (`DynamoDB.AccessDeniedException`...).
 */

import { SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { holdDuringCalls } from '../clock';
import { busArn } from '../eventbridge/event-buses';
import { startInterceptingProxy } from '../fault-hooks';
import { roleSessionPrincipal, servicePrincipal } from '../iam/principals';
import { STEP_FUNCTIONS_CALLER } from '../metering';
import { authorizeJsonRequest } from '../protocol/authorize-json-request';
import type { ListenContext, Provisioner, RuntimeContext, StackContext } from '../provisioning';
import {
  type IntegrationClients,
  type LocalSfnEvent,
  type LocalStepFunctions,
  startLocalStepFunctions,
} from '../stepfunctions';
import { SfnApiError } from '../stepfunctions/errors';
import type { DynamoDbProvisioner } from './dynamodb';
import type { EventBridgeProvisioner } from './eventbridge';
import type { LambdaProvisioner } from './lambda';
import type { SqsProvisioner } from './sqs';
import { arnName, asRecord, asString } from './values';

const STATE_MACHINE = 'AWS::StepFunctions::StateMachine';

export interface StepFunctionsDependencies {
  readonly dynamodb: DynamoDbProvisioner;
  readonly sqs: SqsProvisioner;
  readonly eventBridge: EventBridgeProvisioner;
  readonly lambda: LambdaProvisioner;
}

export class StepFunctionsProvisioner implements Provisioner {
  readonly name = 'Step Functions';
  readonly resourceTypes = { runs: [STATE_MACHINE] };
  private service: LocalStepFunctions | undefined;
  /** Each state machine's role and where it was declared, checked once IAM has read every stack. */
  private readonly roles: Array<{
    readonly where: string;
    readonly roleArn: string;
    readonly machineArn: string;
  }> = [];
  /** The integrations' clients of each state machine role, made at its first call. */
  private readonly clientsByRole = new Map<string, IntegrationClients>();

  constructor(private readonly dependencies: StepFunctionsDependencies) {}

  async listen(context: ListenContext): Promise<void> {
    if (context.resourcesOfType(STATE_MACHINE).length === 0) return;
    const { dynamodb, sqs, eventBridge, lambda } = this.dependencies;
    const integrationsFor = (roleArn: string): IntegrationClients => {
      const known = this.clientsByRole.get(roleArn);
      if (known) return known;
      const session = context.iam.credentials.roleSession(roleArn, 'states');
      const { principal } = session;
      /** An AccessDeniedException as the SDK raises it, for the task's error name. */
      const denied = (message: string) =>
        Object.assign(new Error(message), {
          name: 'AccessDeniedException',
          $metadata: { httpStatusCode: 400 },
        });
      const clients: IntegrationClients = {
        // Through the capacity meter when the runtime meters: Step Functions' calls are billed too.
        dynamodb: dynamodb.clientFor(STEP_FUNCTIONS_CALLER, session),
        sqs: sqs.clientFor(session),
        putEvents: async (entries) => {
          const buses = new Set(
            entries.map((entry) => busArn(context.region, context.accountId, entry.EventBusName)),
          );
          const verdict = context.iam.authorizer.authorizeAll(
            [...buses].map((resource) => ({ principal, action: 'events:PutEvents', resource })),
          );
          if (!verdict.allowed) throw denied(verdict.message);
          return eventBridge.putEvents(entries);
        },
        invokeLambda: async (functionName, payload) => {
          const functionArn = lambda.host.find(functionName)?.functionArn ?? functionName;
          const verdict = lambda.authorizeInvoke(principal, functionArn);
          if (!verdict.allowed) throw denied(verdict.message);
          const result = await lambda.host.invoke(functionName, payload);
          return result.ok
            ? { payload: result.payload, executedVersion: '$LATEST' }
            : { payload: result.error, functionError: 'Unhandled', executedVersion: '$LATEST' };
        },
      };
      this.clientsByRole.set(roleArn, clients);
      return clients;
    };
    const service = await startLocalStepFunctions({
      region: context.region,
      accountId: context.accountId,
      clock: context.clock,
      integrationsFor,
      // https://docs.aws.amazon.com/step-functions/latest/apireference/CommonErrors.html
      authorize: (checks, received) =>
        authorizeJsonRequest(context.iam, { region: context.region, service: 'states' }, received, checks),
      onInternalError: (error) =>
        context.problem(`local Step Functions: ${(error as Error).message ?? error}`),
    });
    this.service = service;
    context.stopWith(service, 'producer');
    const { meter } = context;
    service.events.on('event', (event: LocalSfnEvent) => {
      const stateMachineName = arnName(event.stateMachineArn);
      if (event.type === 'ExecutionStarted') meter?.executionStarted(stateMachineName);
      // AWS bills every state entered and every retry of a state as a transition.
      if (event.type === 'StateEntered' || event.type === 'StateRetried') {
        meter?.stateTransition(stateMachineName, event.stateName);
      }
      if (event.type === 'ExecutionFailed' || event.type === 'ExecutionTimedOut') {
        const outcome = event.type === 'ExecutionFailed' ? 'failed' : 'timed out';
        const cause = event.cause ? ` (${event.cause.slice(0, 200)})` : '';
        context.log(`execution ${arnName(event.executionArn)} ${outcome}: ${event.error}${cause}`);
      }
    });
    const client = holdDuringCalls(
      new SFNClient({ ...context.clientConfig(), endpoint: service.endpoint }),
      context.clock,
    );
    context.onStop(() => client.destroy());
    context.deliveries.register('states', async (stateMachineArn, input, options) => {
      // A delivery (an EventBridge target's role, a pipe's) starts the execution as its principal.
      const by = options.deliveredAs;
      if (by) {
        const verdict = context.iam.authorizer.authorize({
          principal:
            by.kind === 'role' ? roleSessionPrincipal(by.roleArn, 'delivery') : servicePrincipal(by.service),
          action: 'states:StartExecution',
          resource: stateMachineArn,
          ...(by.kind === 'service' ? { context: { 'aws:sourcearn': by.sourceArn } } : {}),
        });
        if (!verdict.allowed) throw new SfnApiError('AccessDeniedException', verdict.message);
      }
      await client.send(new StartExecutionCommand({ stateMachineArn, input }));
    });
    let forFunctions = service.endpoint;
    const interceptor = context.options.faults?.stepFunctionsApi;
    if (interceptor) {
      const proxy = await startInterceptingProxy(
        service.endpoint,
        interceptor,
        (message) => context.problem(message),
        context.clock,
      );
      context.stopWith(proxy, 'producer');
      forFunctions = proxy.endpoint;
    }
    context.endpoints.announce('SFN', service.endpoint, forFunctions);
  }

  /**
   * Step Functions refuses to create a state machine whose role it cannot assume (CreateStateMachine:
   * AccessDeniedException "Neither the global service principal states.amazonaws.com, nor the
   * regional one is authorized to assume the provided role",
   * https://docs.aws.amazon.com/step-functions/latest/apireference/API_CreateStateMachine.html).
   */
  async start(context: RuntimeContext): Promise<void> {
    const untrusted = this.roles.filter(
      ({ roleArn, machineArn }) =>
        !context.iam.account.trusts(roleArn, 'states.amazonaws.com', context.region, machineArn),
    );
    if (untrusted.length > 0) {
      throw new Error(
        untrusted
          .map(
            ({ where, roleArn }) =>
              `${where}: AccessDeniedException: Neither the global service principal states.amazonaws.com, nor the regional one is authorized to assume the provided role (${roleArn})`,
          )
          .join('\n'),
      );
    }
  }

  async provision(context: StackContext): Promise<void> {
    for (const [logicalId] of context.ofType(STATE_MACHINE)) {
      const service = this.service;
      if (!service) throw new Error('Step Functions is not started although the assembly has state machines');
      const { resolver } = context;
      const properties = resolver.properties(logicalId);
      const definition =
        asString(properties.DefinitionString) ??
        (properties.Definition !== undefined ? JSON.stringify(properties.Definition) : undefined);
      if (definition === undefined) {
        context.named(
          logicalId,
          STATE_MACHINE,
          'no DefinitionString or Definition (S3 definitions are not supported)',
        );
        continue;
      }
      const name = resolver.physicalName(logicalId);
      context.meter?.describe('stateMachines', name, { stackName: context.stack.stackName, logicalId });
      try {
        const registered = service.registerStateMachine(
          String(resolver.context.ref(logicalId)),
          name,
          substituteDefinition(definition, asRecord(properties.DefinitionSubstitutions)),
          {
            roleArn: asString(properties.RoleArn),
            type: properties.StateMachineType === 'EXPRESS' ? 'EXPRESS' : 'STANDARD',
          },
        );
        const roleArn = asString(properties.RoleArn);
        if (roleArn) {
          const machineArn = String(resolver.context.ref(logicalId));
          this.roles.push({ where: `${context.stack.stackName}/${logicalId}`, roleArn, machineArn });
        }
        for (const warning of registered.warnings) context.named(logicalId, STATE_MACHINE, warning);
      } catch (error) {
        context.named(logicalId, STATE_MACHINE, (error as Error).message);
      }
    }
  }
}

/** DefinitionSubstitutions: ${name} placeholders in the definition string. */
function substituteDefinition(definition: string, substitutions: Record<string, unknown>): string {
  return definition.replace(/\$\{([A-Za-z0-9_]+)\}/g, (whole, name: string) =>
    name in substitutions ? String(substitutions[name]) : whole,
  );
}
