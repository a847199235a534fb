/**
 * The contracts module: names, environment keys, schemas, states, transitions, metrics and versions
 * shared by the CDK constructs (lib/) and the runtime code (lambdas/). It depends on zod and
 * lambdas/shared's parsing only, so lib/ can import it without pulling in adapters or SDK clients.
 */
export * from './admission';
export * from './api';
export * from './client-status';
export * from './console';
export * from './env';
export * from './events';
export * from './messages';
export * from './metrics';
export * from './operator-actions';
export * from './operator-workflow';
export * from './remote-service';
export * from './retry-budget';
export * from './state-record';
export * from './states';
export * from './steps';
export * from './timings';
export * from './transitions';
export * from './versions';
export * from './workflows';
