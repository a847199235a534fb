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
export const STATE_SCHEMA_VERSION = 2;
export const SUPPORTED_STATE_SCHEMA_VERSIONS: readonly number[] = [2];
export const WORKFLOW_VERSION = 1;
