/**
 * The transitions of the state record, as data: for each one its fence on LockedBy, the rest of
 * its condition, its SET and REMOVE updates, the constants it compares or writes and the
 * parameters its caller binds. Both writers of the store are generated from this table, and a
 * transition is written nowhere else:
 *   - the scheduler's UpdateItem states (JSONPath ASL; parameters bound to execution paths) in
 *     lib/scheduler-agent-supervisor/scheduler/store-updates.ts;
 *   - the starter's and the supervisor's SDK UpdateCommands (parameters bound to request values)
 *     in ../../adapters/state-store.ts;
 *   - for lean workflow versions, progressStepRunning applied by the agent on behalf of its execution
 *     (the execution's instanceId is the fence), in its call reservation (../../adapters/call-budget.ts).
 *
 * Rendering is deterministic, so both sides send the very same expressions: an attribute's
 * placeholder is `#` + its name in lower camel case (`LockedBy` -> `#lockedBy`), the step a step
 * transition applies to is `#step`, a constant's is `:` + its value in lower camel case
 * (`Processing` -> `:processing`) unless the constant names one, a parameter's is `:` + its name.
 *
 * The vocabulary is model.ts, the table table.ts (from builders.ts), rendering renderer.ts and
 * binding a caller's values binder.ts; this index is their public face.
 */
export * from './binder';
export * from './model';
export * from './renderer';
export * from './table';
