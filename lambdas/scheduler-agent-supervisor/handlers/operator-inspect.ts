/** GET /operator/orders/{orderId}: record, steps, compensation log, attempts, alerts, operator log. */
import { createDocumentClient } from '../../shared/aws-clients/dynamodb';
import { createSfnClient } from '../../shared/aws-clients/sfn';
import { requireEnv } from '../../shared/env';
import { createObservability } from '../../shared/observability';
import { DynamoAlertArchive } from '../adapters/alert-archive';
import { SfnExecutionHistory } from '../adapters/execution-history';
import { operatorOrderReadHandler } from '../adapters/operator-order-read';
import { DynamoOperatorStore } from '../adapters/operator-store';
import { readWorkflowStateMachines } from '../adapters/runtime-config';
import { EnvKey } from '../contracts';
import { type InspectDependencies, inspectOrder } from '../domain/operator';

const observability = createObservability();
const { tracer } = observability;
const documentClient = createDocumentClient(tracer);
const dependencies: InspectDependencies = {
  records: new DynamoOperatorStore(documentClient, requireEnv(EnvKey.StateTableName)),
  executions: new SfnExecutionHistory(createSfnClient(tracer), readWorkflowStateMachines()),
  alerts: new DynamoAlertArchive(documentClient, requireEnv(EnvKey.AlertArchiveTableName)),
};

export const handler = operatorOrderReadHandler(
  observability,
  (orderId) => inspectOrder(orderId, dependencies),
  'Inspecting the order failed unexpectedly',
);
