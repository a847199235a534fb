/**
 * GET /operator/orders/{orderId}/workflow (DESIGN.md, Operator actions): the latest attempt's
 * execution, found by its name (`<orderId>--attempt-<n>`) on the state machine of the record's
 * workflow version, as inspect finds it. One record read and one execution read: the console polls
 * it beside inspect.
 */
import {
  OPERATOR_HISTORY_MAX_PAGES,
  OPERATOR_HISTORY_PAGE_SIZE,
  type OperatorWorkflowBody,
  WorkflowUnavailable,
} from '../contracts';
import type { ExecutionWorkflows, OperatorRecordReader } from './ports';
import { instanceIdFor } from './state-record';

export interface WorkflowDependencies {
  readonly records: OperatorRecordReader;
  readonly workflows: ExecutionWorkflows;
}

/** undefined when the order is unknown; a body saying why when there is no execution to draw. */
export async function orderWorkflow(
  orderId: string,
  deps: WorkflowDependencies,
): Promise<OperatorWorkflowBody | undefined> {
  const record = await deps.records.view(orderId);
  if (record === undefined) return undefined;
  const base = {
    orderId,
    processState: record.processState,
    workflowVersion: record.workflowVersion,
    attempt: record.attempt,
  };
  if (record.attempt < 1) return { ...base, unavailable: WorkflowUnavailable.NotStarted };
  // The same bounds as inspect's step runs: one page is the rule, the second stops a runaway.
  const execution = await deps.workflows.workflow(
    instanceIdFor(orderId, record.attempt),
    record.workflowVersion,
    {
      pageSize: OPERATOR_HISTORY_PAGE_SIZE,
      maxPages: OPERATOR_HISTORY_MAX_PAGES,
    },
  );
  return execution === undefined
    ? { ...base, unavailable: WorkflowUnavailable.NotFound }
    : { ...base, execution };
}
