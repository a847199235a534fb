/**
 * The Delivery service's reaction as a decision table: starting from the absent DELIVERY# item, the
 * code's own reactToDeliveryEvent (with the guards it is given) is asked about every message in
 * every state it can lead to, until no new state appears; its answers, projected onto the model's
 * values (the status and each producer's recorded sequence), are the rows. Change the rule and the
 * rows change with it. A state the projection cannot hold (a reply the model never sent, two states
 * that project alike but differ, a dead letter) fails the generator by name.
 */
import {
  type DeliverySettings,
  type DeliveryStatus,
  EventType,
  ServiceName,
} from '../../../lambdas/choreography/contracts';
import type { DeliveryState } from '../../../lambdas/choreography/protocol';
import { DELIVERY_MESSAGES, type DeliveryMessage, deliveryEvent, producerOf } from './delivery-messages';
import type { DeliveryRules } from './delivery-rules';
import { MODEL_NOW } from './model-envelope';

/** The DELIVERY# item as the model holds it: its status ('ABSENT' before one exists) and each producer's recorded sequence (0: none). */
export interface ModelDelivery {
  readonly status: 'ABSENT' | DeliveryStatus;
  readonly package: number;
  readonly drone: number;
  readonly flight: number;
}

export type DeliveryOutcome =
  | { readonly kind: 'ignore' }
  | {
      readonly kind: 'change';
      readonly state: ModelDelivery;
      /** The lifecycle events the change emits, in order. */
      readonly emits: readonly string[];
    };

export interface DeliveryRow {
  readonly read: ModelDelivery;
  readonly message: DeliveryMessage;
  readonly outcome: DeliveryOutcome;
}

export interface DeliveryTable {
  /** Every state the rule leads to from the absent item, the absent item first. */
  readonly states: readonly ModelDelivery[];
  /** One row per (state, message). */
  readonly rows: readonly DeliveryRow[];
}

const SETTINGS: DeliverySettings = {
  maxReceiveAttempts: 3,
  processedMessageTtlSeconds: 3600,
  expectedFlightSeconds: 900,
};

const ABSENT: ModelDelivery = { status: 'ABSENT', package: 0, drone: 0, flight: 0 };

/** The reply slots of the record, with the producer whose sequence each records. */
const SLOTS = [
  { slot: 'package', producer: ServiceName.Package },
  { slot: 'drone', producer: ServiceName.DroneScheduler },
  { slot: 'flight', producer: ServiceName.DroneFleet },
] as const;

/** The recorded sequence of one slot, refused unless it is the very reply one of `messages` leads to. */
function sequenceIn(
  state: DeliveryState,
  slot: (typeof SLOTS)[number],
  messages: readonly DeliveryMessage[],
): number {
  const recorded = state[slot.slot];
  if (recorded === undefined) return 0;
  const sent = messages.find(
    (message) => producerOf(message.type) === slot.producer && message.sequence === recorded.sequence,
  );
  const event = sent && deliveryEvent(sent);
  const matches =
    event !== undefined &&
    ('eventId' in recorded
      ? recorded.eventId === event.eventId
      : event.type === EventType.FlightProgress && recorded.stage === event.data.stage);
  if (!matches) throw new Error(`The delivery model sent no ${slot.slot} reply ${JSON.stringify(recorded)}`);
  return recorded.sequence;
}

function project(state: DeliveryState, messages: readonly DeliveryMessage[]): ModelDelivery {
  return {
    status: state.status,
    package: sequenceIn(state, SLOTS[0], messages),
    drone: sequenceIn(state, SLOTS[1], messages),
    flight: sequenceIn(state, SLOTS[2], messages),
  };
}

const keyOf = (state: ModelDelivery) => JSON.stringify(state);

/** JSON with its keys sorted: two states equal whatever order their attributes were set in. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner !== null && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => a.localeCompare(b)))
      : inner,
  );
}

/** The table of `rules` over `messages` (the model's, unless given). */
export function deliveryTable(
  rules: DeliveryRules,
  messages: readonly DeliveryMessage[] = DELIVERY_MESSAGES,
): DeliveryTable {
  const concrete = new Map<string, DeliveryState | undefined>([[keyOf(ABSENT), undefined]]);
  const states: ModelDelivery[] = [ABSENT];
  const rows: DeliveryRow[] = [];
  for (let index = 0; index < states.length; index++) {
    const read = states[index] as ModelDelivery;
    for (const message of messages) {
      const decision = rules.react(
        {
          state: concrete.get(keyOf(read)),
          event: deliveryEvent(message),
          now: MODEL_NOW,
          settings: SETTINGS,
        },
        rules.guards,
      );
      if (decision.kind === 'ignore') {
        rows.push({ read, message, outcome: { kind: 'ignore' } });
        continue;
      }
      if (decision.deadLetter !== undefined) {
        throw new Error(`The delivery model has no dead letters; the rule dead-letters ${message.name}`);
      }
      const state = project(decision.state, messages);
      const key = keyOf(state);
      const known = concrete.get(key);
      if (!concrete.has(key)) {
        concrete.set(key, decision.state);
        states.push(state);
      } else if (canonical(known) !== canonical(decision.state)) {
        throw new Error(
          `The delivery model holds a status and three sequences; the rule's state ${key} differs in more: ${canonical(known)} vs ${canonical(decision.state)}`,
        );
      }
      rows.push({
        read,
        message,
        outcome: { kind: 'change', state, emits: decision.emissions.map((emitted) => emitted.type) },
      });
    }
  }
  return { states, rows };
}
