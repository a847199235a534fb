/**
 * Versions carried by persisted state and workflow definitions (MISSION item 12). A record keeps
 * the workflow version it started on; code that reads records must accept every version listed in
 * SUPPORTED_STATE_SCHEMA_VERSIONS.
 */
/**
 * 2: CompensationLog (created empty with the record: its entries are SET by path), RunningStep,
 * CompensationFailureCount, ClientId, AdmissionShard, OperatorLog. Version 1 records were never
 * deployed outside development; they are refused, not migrated.
 */
/**
 * 3: RetryBudget, CallsMade, AlertOutbox. Version 2 records (deployed before) are still read: a
 * missing RetryBudget means the deployment's budget, missing CallsMade means no call reserved yet,
 * a missing AlertOutbox means nothing to deliver.
 */
export const STATE_SCHEMA_VERSION = 3;
export const SUPPORTED_STATE_SCHEMA_VERSIONS: readonly number[] = [2, 3];
/**
 * Workflow versions live in ./workflows.ts: a record's WorkflowVersion is written at submission
 * (the deployment's current version) and never changes.
 */
