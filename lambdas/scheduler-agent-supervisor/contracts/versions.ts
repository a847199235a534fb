/**
 * Versions carried by persisted state and workflow definitions (MISSION item 12). A record keeps
 * the workflow version it started on; code that reads records must accept every version listed in
 * SUPPORTED_STATE_SCHEMA_VERSIONS.
 */
export const STATE_SCHEMA_VERSION = 1;
export const SUPPORTED_STATE_SCHEMA_VERSIONS: readonly number[] = [1];
export const WORKFLOW_VERSION = 1;
