/**
 * The drone scheduler's booking as a Promela model, generated from the code: the decision table is
 * reactToDroneEvent's answers (booking-table.ts), the commit's guards are the conditions the code
 * puts on the marker, the ASSIGNMENT# item and the DRONE# item (commit-guard.ts). The actors are
 * the scheduler's consumers, one per delivery of each message: any may run alongside any other (a
 * duplicate, a redelivery next to the zombie it replaced), each reads the items one at a time and
 * may crash before its commit (the reads change nothing shared, so one crash point before the commit
 * stands for a crash at any step), and a lost race re-reads. Messages of one delivery arrive in any
 * order: a superset of the FIFO queue's order with redrives.
 */

import { AssignmentStatus } from '../../../lambdas/choreography/protocol';
import type { SpinModel } from '../spin';
import { BOOKING_RULES, type BookingRules } from './booking-rules';
import { BOOKING_MESSAGES, type BookingRow, bookingTable, readVersionOf } from './booking-table';
import type { BookingBounds } from './bounds';
import { commitGuard } from './commit-guard';
import { decisionTableText } from './decision-table-text';
import { promela } from './promela-text';

const asg = (status: string) => promela.identifier('A', status);
const msg = (message: string) => promela.identifier('M', message);
const evt = (type: string) => promela.identifier('E', type);

export const BOOKING_PROPERTIES = [
  'no drone is double-booked: at most one SCHEDULED assignment per drone, at most one booking on its DRONE# item (every window overlaps)',
  'a delivery holds at most one booking, whatever duplicates, redeliveries and retries ran',
  'the ASSIGNMENT# and DRONE# items agree: a SCHEDULED assignment is booked on its drone, and a booking is a SCHEDULED assignment',
  'a released booking frees the drone, and RELEASED is final',
] as const;

/** What a row sets, with the DRONE# bookings written said relative to the ones read when they can be. */
function outcomeText(row: BookingRow): string {
  const { outcome } = row;
  if (outcome.kind === 'ignore') return 'kind = 0';
  const bit = 1 << row.delivery;
  const read = outcome.drone > 0 ? row.held[outcome.drone - 1] : undefined;
  const bookings =
    read === undefined
      ? '0'
      : outcome.held === (read | bit)
        ? `rh[wd - 1] | ${bit}`
        : outcome.held === (read & ~bit)
          ? `rh[wd - 1] & ${255 - bit}`
          : `${outcome.held}`;
  return `kind = 1; na = ${asg(outcome.assignment.status)}; nad = ${outcome.assignment.drone}; em = ${evt(outcome.emits)}; wd = ${outcome.drone}; nh = ${bookings}`;
}

/** The table as guarded options: rows of one read and one outcome share a guard over the bookings read. */
function tableText(rows: readonly BookingRow[], bounds: BookingBounds): string {
  return decisionTableText(
    rows.map((row) => ({
      when: `x == ${row.delivery} && m == ${msg(row.message)} && ra == ${asg(row.read.status)} && rad == ${row.read.drone}`,
      outcome: outcomeText(row),
      read: row.held,
    })),
    Array.from({ length: bounds.drones }, (_, d) => `rh[${d}]`),
    1 << bounds.deliveries,
    '    ',
  );
}

/** The guards of the commit, from the code's conditions (commit-guard.ts). */
function commitGuards(rules: BookingRules): { marker: string; assignment: string; drone: string } {
  const droneWrite = (read: { readonly version: number } | undefined) =>
    rules.droneWrite('model', { droneId: 'drone-0', expectedVersion: read?.version ?? 0, assignments: [] })
      .Put;
  const drone = commitGuard.item(
    droneWrite,
    { version: 'droneVer[wd - 1]', read: 'rv[wd - 1]' },
    readVersionOf(0),
  );
  return {
    marker: commitGuard.marker(rules.markerCondition, '!marker[msgId]'),
    assignment: commitGuard.item(rules.itemCondition, { version: 'asgVer[x]', read: 'rav' }),
    drone: `(wd == 0 -> 1 : ${drone})`,
  };
}

function invariants(bounds: BookingBounds): string {
  const deliveries = [...Array(bounds.deliveries).keys()];
  const drones = [...Array(bounds.drones).keys()];
  const scheduledOn = (x: number, d: number) =>
    `(asgSt[${x}] == ${asg(AssignmentStatus.Scheduled)} && asgDrone[${x}] == ${d + 1})`;
  const holds = (d: number, x: number) => `((held[${d}] >> ${x}) & 1)`;
  const count = (terms: string[]) => terms.map((term) => `(${term} -> 1 : 0)`).join(' + ');
  const checks: string[] = [];
  for (const d of drones) {
    checks.push(
      promela.check(
        `${count(deliveries.map((x) => scheduledOn(x, d)))} <= 1`,
        `drone ${d} is double-booked (two SCHEDULED assignments)`,
      ),
      promela.check(`${count(deliveries.map((x) => holds(d, x)))} <= 1`, `drone ${d} holds two bookings`),
    );
  }
  for (const x of deliveries) {
    checks.push(
      promela.check(`${count(drones.map((d) => holds(d, x)))} <= 1`, `delivery d${x} holds two bookings`),
      ...drones.map((d) =>
        promela.check(
          `(${holds(d, x)} == 1) == ${scheduledOn(x, d)}`,
          `delivery d${x}: ASSIGNMENT# and DRONE#${d} disagree`,
        ),
      ),
      promela.check(
        `asgSt[${x}] != ${asg(AssignmentStatus.Released)} || ${count(drones.map((d) => holds(d, x)))} == 0`,
        `delivery d${x} is released but still holds a drone`,
      ),
      promela.check(
        `!released[${x}] || asgSt[${x}] == ${asg(AssignmentStatus.Released)}`,
        `delivery d${x} was released, then not`,
      ),
    );
  }
  return checks.join(';\n  ');
}

/** One step per DRONE# read (BatchGetItem is no snapshot); the last one decides, from the table. */
function readDrones(drones: number, table: string): string {
  return Array.from(
    { length: drones },
    (_, d) =>
      `atomic { rh[${d}] = held[${d}]; rv[${d}] = droneVer[${d}]; printf("@@ scheduler#%d reads DRONE#${d}: version %d, bookings %d\\n", copy, rv[${d}], rh[${d}])${d === drones - 1 ? `;\n    ${table}` : ''} }`,
  ).join(';\n  ');
}

/**
 * The booking model; `rules` defaults to the code's (a broken variant passes others). With
 * `liveness`, each consumer counts itself finished and the model states that all do: the count is a
 * global write at every consumer's end, which costs the search its partial order reduction there
 * (at 2 deliveries × 2 drones, 18,246,768 states instead of 2,245,083), so only the models whose
 * liveness is checked carry it.
 */
export function bookingModel(
  bounds: BookingBounds,
  rules: BookingRules = BOOKING_RULES,
  name = 'booking',
  liveness = false,
): SpinModel {
  const rows = bookingTable(rules, bounds.deliveries, bounds.drones);
  const guards = commitGuards(rules);
  const statuses = ['ABSENT', ...Object.values(AssignmentStatus)].map(asg);
  const emitted = [
    ...new Set(rows.flatMap((row) => (row.outcome.kind === 'change' ? [row.outcome.emits] : []))),
  ];
  const messages = BOOKING_MESSAGES.length * bounds.deliveries;
  const rowsText = tableText(rows, bounds);
  const runs: string[] = [];
  for (let x = 0; x < bounds.deliveries; x++) {
    BOOKING_MESSAGES.forEach((message, index) => {
      const copies = message === 'request' ? bounds.copies : 1;
      for (let copy = 1; copy <= copies; copy++) {
        runs.push(`run consumer(${x * BOOKING_MESSAGES.length + index}, ${x}, ${msg(message)}, ${copy})`);
      }
    });
  }
  const finishes = promela.finishes(liveness, runs.length);
  const source = `/* Generated by lib/verify/deliveries/booking-model.ts from the drone scheduler's code: do not edit. */
mtype = { ${[...statuses, ...BOOKING_MESSAGES.map(msg), ...emitted.map(evt), 'E_none'].join(', ')} };
#define D ${bounds.deliveries}
#define N ${bounds.drones}
mtype asgSt[D]; byte asgDrone[D]; byte asgVer[D];
byte held[N]; byte droneVer[N];
bool marker[${messages}];
bool released[D];
${finishes.declaration}

inline checkInvariants() {
  ${invariants(bounds)}
}

proctype consumer(byte msgId; byte x; mtype m; byte copy) {
  mtype ra, na = E_none, em = E_none; byte rad, rav, nad, wd, nh, kind;
  byte rh[N]; byte rv[N];
read:
  atomic {
    if
    :: marker[msgId] -> printf("@@ scheduler#%d: %e of d%d is marked processed: a duplicate, acked\\n", copy, m, x); goto done
    :: else -> ra = asgSt[x]; rad = asgDrone[x]; rav = asgVer[x]; printf("@@ scheduler#%d takes %e of d%d, reads ASSIGNMENT#d%d: %e on drone no. %d (1-based, 0: none), version %d\\n", copy, m, x, x, ra, rad, rav)
    fi
  };
  ${readDrones(bounds.drones, rowsText)};
  if
  :: atomic { printf("@@ scheduler#%d crashes before committing %e of d%d (redelivered later)\\n", copy, m, x); goto done }
  :: atomic {
    if
    :: ${guards.marker} && ${guards.assignment} && (kind == 0 || ${guards.drone}) ->
      marker[msgId] = true;
      if
      :: kind == 1 ->
        asgSt[x] = na; asgDrone[x] = nad; asgVer[x] = rav + 1;
        if :: wd > 0 -> held[wd - 1] = nh; droneVer[wd - 1] = rv[wd - 1] + 1 :: else -> skip fi;
        released[x] = released[x] || na == ${asg(AssignmentStatus.Released)};
        printf("@@ scheduler#%d commits %e of d%d: ASSIGNMENT#d%d %e on drone no. %d (1-based, 0: none), emits %e\\n", copy, m, x, x, na, nad, em);
        if :: wd > 0 -> printf("@@ scheduler#%d   and DRONE#%d bookings %d (version %d)\\n", copy, wd - 1, nh, droneVer[wd - 1]) :: else -> skip fi
      :: else -> printf("@@ scheduler#%d commits %e of d%d as ignored (marker only)\\n", copy, m, x)
      fi;
      checkInvariants()
    :: else ->
      if
      :: !(${guards.marker}) -> printf("@@ scheduler#%d: marker of %e of d%d exists: a duplicate, acked\\n", copy, m, x); goto done
      :: else -> printf("@@ scheduler#%d loses the race for %e of d%d: reads again\\n", copy, m, x); goto read
      fi
    fi
    }
  fi;
done:
  atomic { ra = 0; rad = 0; rav = 0; na = 0; nad = 0; em = 0; wd = 0; nh = 0; kind = 0; ${Array.from({ length: bounds.drones }, (_, d) => `rh[${d}] = 0; rv[${d}] = 0`).join('; ')}${finishes.count} }
}

init {
  byte i;
  atomic {
    for (i : 0 .. D - 1) { asgSt[i] = ${asg('ABSENT')} }
    ${runs.join(';\n    ')}
  }
}

${finishes.ltl}
`;
  return {
    name,
    source,
    bounds: { ...bounds, messagesPerDelivery: BOOKING_MESSAGES.length, tableRows: rows.length },
    properties: [...BOOKING_PROPERTIES, ...finishes.properties],
    liveness: finishes.checks,
  };
}
