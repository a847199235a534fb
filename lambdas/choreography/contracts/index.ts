/**
 * The choreography's contracts: names, events and their versioned schemas, reason codes and the
 * remediation ladder, statuses, routing, settings, environment keys, metrics and the API. Depends on
 * zod and lambdas/shared only, so lib/ imports it without pulling in adapters or SDK clients.
 */
export * from './alarms';
export * from './api';
export * from './env';
export * from './events';
export * from './metrics';
export * from './names';
export * from './operator';
export * from './outbox';
export * from './parse-event';
export * from './reason-codes';
export * from './requesters';
export * from './routing';
export * from './settings';
export * from './statuses';
export * from './tables';
