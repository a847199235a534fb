/**
 * Step Functions: the local service (stepfunctions/) started when the assembly declares a state
 * machine, with its DynamoDB, SQS, EventBridge and Lambda integrations wired to the other
 * provisioners; one registered state machine per AWS::StepFunctions::StateMachine; deliveries to
 * state machine ARNs (StartExecution, for EventBridge targets). Functions reach the API through a
 * fault proxy when the stepFunctionsApi hook is set.
 */
import { SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { startInterceptingProxy } from '../fault-hooks';
import { STEP_FUNCTIONS_CALLER } from '../metering';
import type { ListenContext, Provisioner, StackContext } from '../provisioning';
import { type LocalSfnEvent, type LocalStepFunctions, startLocalStepFunctions } from '../stepfunctions';
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

  constructor(private readonly dependencies: StepFunctionsDependencies) {}

  async listen(context: ListenContext): Promise<void> {
    if (context.resourcesOfType(STATE_MACHINE).length === 0) return;
    const { dynamodb, sqs, eventBridge, lambda } = this.dependencies;
    const service = await startLocalStepFunctions({
      region: context.region,
      accountId: context.accountId,
      // Through the capacity meter when the runtime meters: Step Functions' calls are billed too.
      dynamodb: dynamodb.clientFor(STEP_FUNCTIONS_CALLER, context.iam.credentials.rootCredentials),
      sqs: sqs.client,
      putEvents: (entries) => eventBridge.putEvents(entries),
      invokeLambda: async (functionName, payload) => {
        const result = await lambda.host.invoke(functionName, payload);
        return result.ok
          ? { payload: result.payload, executedVersion: '$LATEST' }
          : { payload: result.error, functionError: 'Unhandled', executedVersion: '$LATEST' };
      },
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
    const client = new SFNClient({ ...context.clientConfig(), endpoint: service.endpoint });
    context.onStop(() => client.destroy());
    context.deliveries.register('states', async (stateMachineArn, input) => {
      await client.send(new StartExecutionCommand({ stateMachineArn, input }));
    });
    let forFunctions = service.endpoint;
    const interceptor = context.options.faults?.stepFunctionsApi;
    if (interceptor) {
      const proxy = await startInterceptingProxy(service.endpoint, interceptor, (message) =>
        context.problem(message),
      );
      context.stopWith(proxy, 'producer');
      forFunctions = proxy.endpoint;
    }
    context.endpoints.announce('SFN', service.endpoint, forFunctions);
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
