/**
 * Ports: what the order use cases need from the outside world, one file per use case (the agent's
 * with them). Adapters in ../../adapters implement them with the AWS SDK; the use cases and their
 * decisions never see an SDK type. Named for what they are (StartQueue, ClaimStore), never with a
 * `Port` suffix.
 */
export * from './admission';
export * from './agent';
export * from './alert-outbox';
export * from './client-replies';
export * from './common';
export * from './gauges';
export * from './operator';
export * from './starter';
export * from './submission';
export * from './supervisor';
