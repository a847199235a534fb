/** GET /operator/orders/{orderId}/workflow: the latest attempt's definition and the states it entered. */
import { createDocumentClient } from '../../shared/aws-clients/dynamodb';
import { createSfnClient } from '../../shared/aws-clients/sfn';
import { requireEnv } from '../../shared/env';
import { createObservability } from '../../shared/observability';
import { SfnExecutionWorkflows } from '../adapters/execution-workflow';
import { operatorOrderReadHandler } from '../adapters/operator-order-read';
import { DynamoOperatorStore } from '../adapters/operator-store';
import { readWorkflowStateMachines } from '../adapters/runtime-config';
import { EnvKey } from '../contracts';
import { orderWorkflow, type WorkflowDependencies } from '../domain/operator-workflow';

const observability = createObservability();
const { tracer } = observability;
const dependencies: WorkflowDependencies = {
  records: new DynamoOperatorStore(createDocumentClient(tracer), requireEnv(EnvKey.StateTableName)),
  workflows: new SfnExecutionWorkflows(createSfnClient(tracer), readWorkflowStateMachines()),
};

export const handler = operatorOrderReadHandler(
  observability,
  (orderId) => orderWorkflow(orderId, dependencies),
  "Reading the order's workflow failed unexpectedly",
);
