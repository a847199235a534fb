/**
 * The consumer kit: everything a choreography service needs besides its own rules. A service is
 *
 *   domain/<service>.ts   a pure reaction: (item as read, event, now, settings) → Reaction
 *   handlers/<service>.ts export const handler = consumerHandler(SettingsSchema, (kit) => ({
 *                           service, itemKeyOf: (event) => `<PREFIX>#${event.deliveryId}`,
 *                           react: (current, event, now) => react(current, event, now, kit.settings),
 *                         }));
 *
 * and the kit does the rest (DESIGN.md "Consumers"): parse with CONSUMED_EVENT_TYPES, dead-letter
 * POISON / SCHEMA_INVALID / UNKNOWN_VERSION at once, skip duplicates (re-sending a recorded dead
 * letter), commit marker + state + change log (+ extra writes) in one transaction, retry a lost
 * version race from a fresh read, dead-letter a business rejection after the commit, and on
 * dependency errors retry the record until its last allowed receive, then dead-letter
 * DEPENDENCY_TIMEOUT.
 */
export { type ConsumerKit, consumerHandler } from './adapters/consumer-root';
export {
  type DeadLetter,
  type DeadLetterer,
  deadLetterDeduplicationId,
  SqsDeadLetterer,
  UNATTRIBUTED_GROUP,
} from './adapters/dead-letterer';
/** submit-delivery's own writes: the tooling accepts a delivery past the door with them (the chaos campaign, the acceptance client). */
export { DeliveryRecords, type SubmitOutcome as DeliveryRecordsOutcome } from './adapters/delivery-records';
export {
  CommitConflictError,
  type ConsumerDefinition,
  type ConsumerDependencies,
  fifoConsumer,
  MAX_COMMIT_ATTEMPTS,
} from './adapters/fifo-consumer';
/** A dead letter's identity and its marker: remediation's own derivation, also read by the chaos campaign's injector. */
export { deadLetterKeyOf, deadLetterMarkerKeyOf } from './adapters/remediation-consumer';
export {
  type CommitOutcome,
  type CommitRequest,
  DynamoServiceStore,
  type ExtraWrite,
  markerKeyOf,
  type ProcessedMarker,
  VERSION_ATTRIBUTE,
} from './adapters/service-store';
export { readServiceSettings } from './adapters/settings';
export { type Emission, emission } from './domain/envelope';
export { change, type DeadLetterReason, ignore, type Reaction, type ServiceItem } from './domain/reaction';
