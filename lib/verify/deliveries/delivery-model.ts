/**
 * The Delivery service's record as a Promela model, generated from the code: the decision table is
 * reactToDeliveryEvent's answers with the guards it is given (delivery-table.ts), the commit's guards
 * are the conditions the kit's transaction puts on the marker and the DELIVERY# item
 * (commit-guard.ts). The actors are the service's consumers, one per delivery of each message: all
 * run concurrently (messages of one delivery arrive in any order; a duplicate runs beside its
 * original), each reads the marker and the item, decides, and commits the marker and the item in one
 * conditional write, or crashes first (the message lost, or dead-lettered); a lost race re-reads.
 * The properties are stated from the contracts (terminal statuses, the lifecycle's order), never
 * from the guards under test, so a broken guard cannot weaken its own check.
 */
import {
  DELIVERY_STATUSES,
  DeliveryStatus,
  EventType,
  LIFECYCLE_EVENT_TYPES,
  STATUS_AFTER,
  TERMINAL_DELIVERY_STATUSES,
} from '../../../lambdas/choreography/contracts';
import type { SpinModel } from '../spin';
import type { DeliveryBounds } from './bounds';
import { commitGuard } from './commit-guard';
import { decisionTableText } from './decision-table-text';
import { DELIVERY_MESSAGES } from './delivery-messages';
import { DELIVERY_RULES, type DeliveryRules } from './delivery-rules';
import { type DeliveryRow, deliveryTable } from './delivery-table';
import { promela } from './promela-text';

const st = (status: string) => promela.identifier('S', status);
const msg = (name: string) => promela.identifier('M', name);
const emitsOf = (types: readonly string[]) =>
  promela.identifier('E', types.length > 0 ? types.join('_') : 'none');

export const DELIVERY_PROPERTIES = [
  'an older reply never overwrites a newer one: per producer (package, drone scheduler, drone fleet), the recorded sequence never decreases',
  'a terminal status (Delivered, Failed, Cancelled) is final, and the status only moves forward in the lifecycle',
  "each message's effect is applied at most once, and each lifecycle event is published at most once (one terminal event at most)",
  'a delivery is Scheduled, PickedUp or Delivered only after a PackageReady and a DroneScheduled were both applied',
] as const;

/** What a row sets: nothing (ignored), or the record's next values and the events published. */
function outcomeText(row: DeliveryRow): string {
  const { outcome } = row;
  if (outcome.kind === 'ignore') return 'kind = 0';
  const { state, emits } = outcome;
  const bits = emits.reduce((sum, type) => {
    const index = (LIFECYCLE_EVENT_TYPES as readonly string[]).indexOf(type);
    if (index < 0) throw new Error(`The delivery model publishes lifecycle events; the rule emits ${type}`);
    return sum | (1 << index);
  }, 0);
  return `kind = 1; nst = ${st(state.status)}; npk = ${state.package}; ndr = ${state.drone}; nfl = ${state.flight}; em = ${emitsOf(emits)}; emb = ${bits}`;
}

/** The table as guarded options: rows of one message, status read and outcome share a guard over the sequences read. */
function tableText(rows: readonly DeliveryRow[]): string {
  return decisionTableText(
    rows.map((row) => ({
      when: `m == ${msg(row.message.name)} && rst == ${st(row.read.status)}`,
      outcome: outcomeText(row),
      read: [row.read.package, row.read.drone, row.read.flight],
    })),
    ['rpk', 'rdr', 'rfl'],
    256,
    '      ',
  );
}

/** The guards of the commit, from the code's conditions on the marker and the DELIVERY# item (commit-guard.ts). */
function commitGuards(rules: DeliveryRules): { marker: string; item: string } {
  return {
    marker: commitGuard.marker(rules.markerCondition, '!marker[mi]'),
    item: commitGuard.item(rules.itemCondition, { version: 'ver', read: 'rv' }),
  };
}

/** A status's place in the lifecycle (the contracts' order, every terminal status last): ABSENT is 0. */
function rankText(variable: string): string {
  const last = DELIVERY_STATUSES.length;
  const rank = (status: DeliveryStatus) =>
    TERMINAL_DELIVERY_STATUSES.includes(status) ? last : DELIVERY_STATUSES.indexOf(status) + 1;
  return DELIVERY_STATUSES.reduceRight(
    (rest, status) => `(${variable} == ${st(status)} -> ${rank(status)} : ${rest})`,
    '0',
  );
}

const anyOf = (variable: string, statuses: readonly string[]) =>
  `(${statuses.map((status) => `${variable} == ${st(status)}`).join(' || ')})`;

/** Checked before a change is written: the change against the record it replaces. */
function changeChecks(): string {
  return [
    promela.check(
      'npk >= pk && ndr >= dr && nfl >= fl',
      'an older reply overwrote a newer one (a recorded sequence decreased)',
    ),
    promela.check(`!${anyOf('st', TERMINAL_DELIVERY_STATUSES)} || nst == st`, 'a terminal status changed'),
    promela.check(`${rankText('nst')} >= ${rankText('st')}`, 'the status moved backwards in the lifecycle'),
  ].join(';\n  ');
}

/** Checked after every commit: the record and what was applied and published so far. */
function invariants(): string {
  const applied = (type: EventType) =>
    `(${DELIVERY_MESSAGES.flatMap((message, index) => (message.type === type ? [`applied[${index}] > 0`] : [])).join(' || ')})`;
  const terminalEvents = LIFECYCLE_EVENT_TYPES.flatMap((type, index) =>
    TERMINAL_DELIVERY_STATUSES.includes(STATUS_AFTER[type]) ? [`published[${index}]`] : [],
  );
  return [
    ...DELIVERY_MESSAGES.map((message, index) =>
      promela.check(`applied[${index}] <= 1`, `the effect of ${message.name} was applied twice`),
    ),
    ...LIFECYCLE_EVENT_TYPES.map((type, index) =>
      promela.check(`published[${index}] <= 1`, `${type} was published twice`),
    ),
    promela.check(`${terminalEvents.join(' + ')} <= 1`, 'two terminal lifecycle events were published'),
    promela.check(
      `!${anyOf('st', [DeliveryStatus.Scheduled, DeliveryStatus.PickedUp, DeliveryStatus.Delivered])} || (${applied(EventType.PackageReady)} && ${applied(EventType.DroneScheduled)})`,
      'the delivery is under way without a PackageReady and a DroneScheduled applied',
    ),
  ].join(';\n  ');
}

/** The delivery model; `rules` defaults to the code's (a broken variant passes others); with `liveness`, it states that every consumer finishes. */
export function deliveryModel(
  bounds: DeliveryBounds,
  rules: DeliveryRules = DELIVERY_RULES,
  name = 'delivery',
  liveness = false,
): SpinModel {
  const table = deliveryTable(rules, DELIVERY_MESSAGES);
  const guards = commitGuards(rules);
  const emitted = [
    ...new Set(
      table.rows.map((row) => (row.outcome.kind === 'change' ? emitsOf(row.outcome.emits) : emitsOf([]))),
    ),
  ];
  const runs = DELIVERY_MESSAGES.flatMap((message, index) => {
    const copies = bounds.duplicated.includes(message.name) ? 2 : 1;
    return Array.from(
      { length: copies },
      (_, copy) => `run consumer(${index}, ${msg(message.name)}, ${copy + 1})`,
    );
  });
  for (const duplicated of bounds.duplicated) {
    if (!DELIVERY_MESSAGES.some((message) => message.name === duplicated)) {
      throw new Error(`The delivery model sends no message '${duplicated}' to duplicate`);
    }
  }
  const finishes = promela.finishes(liveness, runs.length);
  const source = `/* Generated by lib/verify/deliveries/delivery-model.ts from the Delivery service's code: do not edit. */
mtype = { ${[...['ABSENT', ...DELIVERY_STATUSES].map(st), ...DELIVERY_MESSAGES.map((message) => msg(message.name)), ...emitted].join(', ')} };
mtype st = ${st('ABSENT')}; byte pk, dr, fl, ver;
bool marker[${DELIVERY_MESSAGES.length}];
byte applied[${DELIVERY_MESSAGES.length}]; byte published[${LIFECYCLE_EVENT_TYPES.length}];
byte inFlight, lost;
${finishes.declaration}

inline checkChange() {
  ${changeChecks()}
}

inline checkInvariants() {
  ${invariants()}
}

proctype consumer(byte mi; mtype m; byte copy) {
  mtype rst, nst, em; byte rpk, rdr, rfl, rv, npk, ndr, nfl, emb, i; bit kind;
  atomic { inFlight < ${bounds.inFlight} -> inFlight++ };
read:
  atomic {
    if
    :: marker[mi] -> printf("@@ delivery#%d: %e is marked processed: a duplicate, acked\\n", copy, m); goto done
    :: else ->
      rst = st; rpk = pk; rdr = dr; rfl = fl; rv = ver;
      printf("@@ delivery#%d takes %e, reads DELIVERY#: %e, package seq %d, drone seq %d, flight seq %d (version %d)\\n", copy, m, rst, rpk, rdr, rfl, rv);
      ${tableText(table.rows)};
      rst = 0; rpk = 0; rdr = 0; rfl = 0
    fi
  };
  if
  :: atomic { lost < ${bounds.lost} -> lost++; printf("@@ delivery#%d crashes before committing %e (lost, or redelivered as another copy)\\n", copy, m); goto done }
  :: atomic {
    if
    :: ${guards.marker} && ${guards.item} ->
      marker[mi] = true;
      if
      :: kind == 1 ->
        printf("@@ delivery#%d commits %e: DELIVERY# %e, package seq %d, drone seq %d, flight seq %d (version %d), publishes %e\\n", copy, m, nst, npk, ndr, nfl, rv + 1, em);
        checkChange();
        st = nst; pk = npk; dr = ndr; fl = nfl; ver = rv + 1; applied[mi]++;
        for (i : 0 .. ${LIFECYCLE_EVENT_TYPES.length - 1}) { published[i] = published[i] + ((emb >> i) & 1) }
      :: else -> printf("@@ delivery#%d commits %e as ignored (marker only)\\n", copy, m)
      fi;
      checkInvariants()
    :: else ->
      if
      :: !(${guards.marker}) -> printf("@@ delivery#%d: marker of %e exists: a duplicate, acked\\n", copy, m); goto done
      :: else -> printf("@@ delivery#%d loses the race for %e: reads again\\n", copy, m); goto read
      fi
    fi
    }
  fi;
done:
  atomic { rst = 0; nst = 0; em = 0; rpk = 0; rdr = 0; rfl = 0; rv = 0; npk = 0; ndr = 0; nfl = 0; emb = 0; i = 0; kind = 0; inFlight--${finishes.count} }
}

init {
  atomic {
    ${runs.join(';\n    ')}
  }
}

${finishes.ltl}
`;
  return {
    name,
    source,
    bounds: {
      messages: DELIVERY_MESSAGES.length,
      duplicated: bounds.duplicated.length,
      states: table.states.length,
      tableRows: table.rows.length,
    },
    properties: [...DELIVERY_PROPERTIES, ...finishes.properties],
    liveness: finishes.checks,
  };
}
