import { Stack } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import * as stepfunctions from 'aws-cdk-lib/aws-stepfunctions';
import { type AslState, allStates, parseDefinition } from '../../../lib/platform/guardrails';
import { testApp } from './synth';

/** A stack to build scheduler parts in, with a state table to point them at. */
export function partsStack(): { stack: Stack; stateTable: dynamodb.Table } {
  const stack = new Stack(testApp(), 'Parts');
  const stateTable = new dynamodb.Table(stack, 'StateTable', {
    partitionKey: { name: 'OrderID', type: dynamodb.AttributeType.STRING },
  });
  return { stack, stateTable };
}

/**
 * The states reachable from `start`, rendered as Step Functions receives them (a JSONPath state
 * machine's DefinitionString, intrinsics as `{{Ref:...}}` placeholders).
 */
export function renderStates(stack: Stack, start: sfn.IChainable): Map<string, AslState> {
  const machine = new stepfunctions.StateMachine(stack, `Render${stack.node.children.length}`, {
    queryLanguage: stepfunctions.QueryLanguage.JSON_PATH,
    definitionBody: stepfunctions.DefinitionBody.fromChainable(start),
  });
  const cfn = machine.node.defaultChild as stepfunctions.CfnStateMachine;
  return allStates(parseDefinition(stack.resolve(cfn.definitionString)));
}

/** The named state, or an error listing the ones there are. */
export function stateOf(states: Map<string, AslState>, name: string): AslState {
  const found = states.get(name);
  if (!found) throw new Error(`No state named '${name}'. States: ${[...states.keys()].join(', ')}`);
  return found;
}
