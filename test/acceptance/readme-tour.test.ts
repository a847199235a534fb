/**
 * The README's tours, run as written: the order tour ("Try it locally", the bash block after "A
 * short tour, in a second terminal:") and the drone delivery tour (the bash block of "Drone delivery
 * (choreography)") are read from README.md when the test runs, and each command line runs with
 * bash, in order, from the project's root, against a runtime started as `npm start` starts it: the
 * local profile's synthesized assembly, the app's API port order (bin/app-api-port-order.ts), a
 * target file, the order transition log. What the README promises is checked: the answers its
 * comments quote (202 Pending, the 400 naming the problems, the 409), the CLIs' lists and trails,
 * the table it shows after the tour, and the ports and keys of its start banner.
 *
 * Two things are substituted, and only these: the port (the README's `localhost:3000` and
 * `localhost:3001` become this runtime's base port and the next, since 3000 may be anyone's), and
 * the target file (the README's `./.local/target.json` becomes this runtime's, and LOCAL_TARGET
 * names it for the CLIs, `npm run orders` and `npm run deliveries`, which read `.local/target.json`
 * by default, so a developer's running `npm start` is neither read nor overwritten).
 *
 * A runtime of its own rather than the acceptance layer's shared one: the README shows a fresh
 * system (its `list` tables hold exactly o-1..o-3 and d-1..d-3, and d-1 needs one of the three
 * drones free, which the other files' deliveries may hold for 30 s each), and the README's ports are
 * a fixed base port and the next, where the shared runtime's APIs take free ports. Outcomes that
 * take time (Processed, Compensated, Delivered, ...) are waited for by polling the API, with a
 * generous deadline, where a reader following the tour would wait for them.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { APP_API_PORT_ORDER } from '../../bin/app-api-port-order';
import { appLocalUsers } from '../../bin/app-local-users';
import { DEFAULT_PORT } from '../../bin/start-arguments';
import {
  DEFAULT_LOCAL_REGION,
  type LocalApi,
  type LocalRuntime,
  PROJECT_ROOT,
  startLocalRuntime,
  synthesizeLocalAssembly,
  TARGET_FILE_ENV,
} from '../../lib/local-runtime';
import { orderTransitionLog } from '../../lib/scheduler-agent-supervisor/local/transition-log';
import { freePortRun } from '../support/free-ports';
import { scenarioTimeoutMs } from './setup';

jest.setTimeout(900_000);

const ORDERS_STACK: (typeof APP_API_PORT_ORDER)[0] = 'SchedulerAgentSupervisor';
const DELIVERIES_STACK: (typeof APP_API_PORT_ORDER)[1] = 'DroneDelivery';
/** How long an outcome may take to show (the recovery bound of the local profile's scenarios). */
const OUTCOME_DEADLINE_MS = scenarioTimeoutMs.recovery;
/** One command line of the tour (an `npm run` starts tsx: seconds on a loaded machine). */
const COMMAND_TIMEOUT_MS = 180_000;

const README = readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8');

/** The first fenced block of `language` ('' for a plain block) after `marker` in the README. */
function blockAfter(marker: string, language: string): string {
  const at = README.indexOf(marker);
  if (at < 0) throw new Error(`README.md no longer has "${marker}"`);
  const fence = '```';
  const match = new RegExp(`^${fence}${language}\\n([\\s\\S]*?)^${fence}`, 'm').exec(README.slice(at));
  if (!match?.[1]) throw new Error(`README.md has no ${language || 'plain'} block after "${marker}"`);
  return match[1];
}

interface TourCommand {
  /** The command line as the README writes it (continuations joined), trailing comment included. */
  readonly text: string;
  /** The comment lines just above it (a step's explanation, what it answers). */
  readonly comment: string;
}

interface Tour {
  /** Variable assignments and function definitions, in order: what every later line may use. */
  readonly definitions: readonly string[];
  readonly commands: readonly TourCommand[];
}

const isDefinition = (line: string) =>
  /^[A-Za-z_][A-Za-z0-9_]*=/.test(line) || /^[A-Za-z_][A-Za-z0-9_-]*\(\)\s*\{/.test(line);

/** A tour's lines: continuations (`\` at the end) joined, comments kept with the next command. */
function parseTour(block: string): Tour {
  const lines: string[] = [];
  let pending = '';
  for (const line of block.split('\n')) {
    if (line.endsWith('\\')) pending += `${line}\n`;
    else {
      lines.push(pending + line);
      pending = '';
    }
  }
  const definitions: string[] = [];
  const commands: TourCommand[] = [];
  let comment: string[] = [];
  for (const line of lines) {
    if (line.trim() === '') continue;
    if (line.startsWith('#')) comment.push(line);
    else if (isDefinition(line)) definitions.push(line);
    else {
      commands.push({ text: line, comment: comment.join('\n') });
      comment = [];
    }
  }
  return { definitions, commands };
}

/** A command line without its trailing comment: how the expectations below name it. */
const bare = (text: string) => text.replace(/\s+#\s.*$/, '');

/** The comment above a line of the tour (a step's comment covers the lines after its first). */
function commentAbove(tour: Tour, text: string): string {
  const command = tour.commands.find((candidate) => bare(candidate.text) === text);
  if (!command) throw new Error(`The README's tour no longer has \`${text}\``);
  return command.comment;
}

function commentJson(command: TourCommand, status: number): unknown {
  const quoted = new RegExp(`\\b${status} (\\{.*\\})`).exec(command.comment)?.[1];
  if (!quoted)
    throw new Error(`The README's comment above \`${command.text}\` no longer quotes the ${status} answer`);
  return JSON.parse(quoted);
}

/** The rows of a CLI table in `output` (the header line starts with `first`), by column name. */
function tableRows(output: string, first: string): Record<string, string>[] {
  const lines = output.split('\n');
  const headerAt = lines.findIndex((line) => line.startsWith(`${first} `));
  if (headerAt < 0) throw new Error(`No ${first} table in:\n${output}`);
  const header = (lines[headerAt] ?? '').split(/\s{2,}/);
  const rows: Record<string, string>[] = [];
  for (const line of lines.slice(headerAt + 1)) {
    const cells = line.split(/\s{2,}/);
    if (cells.length < header.length - 1) break;
    rows.push(Object.fromEntries(header.map((name, index) => [name, cells[index] ?? ''])));
  }
  return rows;
}

/** The JSON an `npm run ... ` or curl command printed (after npm's own banner lines). */
function printedJson(output: string): Record<string, unknown> {
  const start = output.indexOf('{');
  if (start < 0) throw new Error(`No JSON in:\n${output}`);
  return JSON.parse(output.slice(start)) as Record<string, unknown>;
}

let workDir: string;
let runtime: LocalRuntime;
let targetFile: string;
let basePort: number;
const runtimeLog: string[] = [];

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'readme-tour-'));
  const assemblyDir = join(workDir, 'cdk.out');
  synthesizeLocalAssembly(assemblyDir);
  targetFile = join(workDir, 'target.json');
  basePort = await freePortRun(APP_API_PORT_ORDER.length);
  runtime = await startLocalRuntime({
    assemblyDir,
    port: basePort,
    apiPortOrder: APP_API_PORT_ORDER,
    users: appLocalUsers(DEFAULT_LOCAL_REGION),
    targetFile,
    functionLogDir: join(workDir, 'logs'),
    observers: [orderTransitionLog()],
    log: (line) => runtimeLog.push(line),
  });
});

afterAll(async () => {
  await runtime?.stop();
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

/** The README's text with this runtime's port and target file put in, and nothing else. */
function substituted(text: string): string {
  return text
    .replaceAll(`localhost:${DEFAULT_PORT + 1}`, `localhost:${basePort + 1}`)
    .replaceAll(`localhost:${DEFAULT_PORT}`, `localhost:${basePort}`)
    .replaceAll('./.local/target.json', targetFile);
}

/** Runs one README line with bash, after the tour's definitions so far, as a reader's shell would. */
async function run(tour: Tour, command: TourCommand): Promise<string> {
  const script = [...tour.definitions, command.text].map(substituted).join('\n');
  try {
    // Asynchronously: the runtime answering the command runs in this process.
    const { stdout } = await promisify(execFile)('bash', ['-c', script], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, [TARGET_FILE_ENV]: targetFile },
      timeout: COMMAND_TIMEOUT_MS,
      maxBuffer: 16 * 1024 * 1024,
    });
    return stdout;
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    throw new Error(
      `README line \`${command.text}\` failed (exit ${failed.code}):\n${failed.stdout ?? ''}\n${failed.stderr ?? ''}`,
    );
  }
}

function apiOf(stackName: string): LocalApi {
  const api = runtime.target.apis?.[stackName];
  if (!api) throw new Error(`The target lists no API of ${stackName}`);
  return api;
}

/** Polls `read` until it answers one of `wanted`, or fails naming what it last saw. */
async function until(what: string, read: () => Promise<string | undefined>, wanted: readonly string[]) {
  const deadline = Date.now() + OUTCOME_DEADLINE_MS;
  let last: string | undefined;
  while (Date.now() < deadline) {
    last = await read();
    if (last !== undefined && wanted.includes(last)) return;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(
    `${what}: still ${last ?? 'unknown'} after ${OUTCOME_DEADLINE_MS} ms, waiting for ${wanted.join(' or ')}`,
  );
}

async function readJson(url: string, apiKey: string): Promise<Record<string, unknown> | undefined> {
  const response = await fetch(url, { headers: { 'x-api-key': apiKey } });
  return response.ok ? ((await response.json()) as Record<string, unknown>) : undefined;
}

const orderState = (orderId: string) => async () => {
  const api = apiOf(ORDERS_STACK);
  const order = await readJson(`${api.url}orders/${orderId}`, runtime.target.apiKey ?? '');
  return order?.processState as string | undefined;
};

const deliveryStatus = (deliveryId: string) => async () => {
  const api = apiOf(DELIVERIES_STACK);
  const delivery = await readJson(`${api.url}deliveries/${deliveryId}`, api.apiKeys[0] ?? '');
  return delivery?.status as string | undefined;
};

const waitForOrder = (orderId: string, ...states: string[]) =>
  until(`order ${orderId}`, orderState(orderId), states);
const waitForDelivery = (deliveryId: string, ...statuses: string[]) =>
  until(`delivery ${deliveryId}`, deliveryStatus(deliveryId), statuses);

/** What one README line must do: what to wait for before it (as a reader would), what it prints. */
interface Expectation {
  readonly before?: () => Promise<void>;
  readonly check: (output: string, command: TourCommand) => void;
}

/** Runs a tour line by line: every line exits 0, every expectation names a line of the README. */
async function runTour(tour: Tour, expectations: Readonly<Record<string, Expectation>>): Promise<void> {
  const lines = tour.commands.map((command) => bare(command.text));
  expect(Object.keys(expectations).filter((line) => !lines.includes(line))).toEqual([]);
  for (const command of tour.commands) {
    const expectation = expectations[bare(command.text)];
    await expectation?.before?.();
    const output = await run(tour, command);
    try {
      expectation?.check(output, command);
    } catch (error) {
      throw new Error(`README line \`${command.text}\` printed:\n${output}\n${(error as Error).message}`);
    }
  }
}

describe("the README's start banner", () => {
  it('is what npm start sets up: orders on the base port with the web-shop key, deliveries on the next', () => {
    const base = /^Local runtime ready at (\S+) /m.exec(README)?.[1];
    expect(base).toBe(`http://localhost:${DEFAULT_PORT}/v1/`);
    expect(runtime.target.apiUrl).toBe(substituted(base ?? ''));
    const banner = [...README.matchAll(/^(\w+) API (http:\/\/localhost:\d+\/v1\/) /gm)];
    expect(banner.map(([, stack]) => stack)).toEqual([ORDERS_STACK, DELIVERIES_STACK]);
    expect(Object.keys(runtime.target.apis ?? {})).toEqual([ORDERS_STACK, DELIVERIES_STACK]);
    for (const [, stack = '', url = ''] of banner) expect(apiOf(stack).url).toBe(substituted(url));
    expect(README).toContain(
      `orders http://localhost:${DEFAULT_PORT}/v1, deliveries :${DEFAULT_PORT + 1}/v1`,
    );
    // `apiKey` is the orders API's first client's (web-shop), as the README says.
    const clients = JSON.parse(runtime.target.stackOutputs[ORDERS_STACK]?.Clients ?? '[]') as Array<{
      clientId: string;
      apiKeyId: string;
    }>;
    const webShop = clients.find((client) => client.clientId === 'web-shop');
    expect(webShop).toBeDefined();
    expect(runtime.target.apiKey).toBe(apiOf(ORDERS_STACK).apiKeyIds?.[webShop?.apiKeyId ?? '']);
  });
});

describe("the README's order tour", () => {
  const tour = parseTour(blockAfter('A short tour, in a second terminal:', 'bash'));
  const badOrder = `curl -s -X POST $API/orders -H "x-api-key: $KEY" -H 'content-type: application/json' -d '{"orderId":"x","items":[]}'`;
  const accepted = (orderId: string) => (output: string) =>
    expect(JSON.parse(output)).toEqual({ orderId, processState: 'Pending' });

  it('runs as written and ends as the README shows', async () => {
    await runTour(tour, {
      'order o-1 BOOK': {
        check: (output, command) => expect(JSON.parse(output)).toEqual(commentJson(command, 202)),
      },
      'curl -s $API/orders/o-1 -H "x-api-key: $KEY"': {
        check: (output) =>
          expect(JSON.parse(output)).toMatchObject({
            orderId: 'o-1',
            processState: expect.stringMatching(/^(Pending|Processing|Processed)$/),
          }),
      },
      'npm run orders -- list': {
        check: (output) => expect(tableRows(output, 'ORDER').map((row) => row.ORDER)).toContain('o-1'),
      },
      'order o-2 STALL-ONCE': { check: accepted('o-2') },
      'npm run orders -- show o-2': {
        check: (output) => expect(printedJson(output)).toMatchObject({ state: { OrderID: 'o-2' } }),
      },
      'order o-3 PERM-FAIL': { check: accepted('o-3') },
      'npm run orders -- list --state Compensated': {
        before: () => waitForOrder('o-3', 'Compensated', 'Error', 'CompensationFailed'),
        check: (output) => {
          // Step 5's comment names the steps as the list shows them: (ReserveInventory:undone ...).
          const steps = /\((ReserveInventory:\S+ ChargePayment:\S+ ScheduleShipping:\S+)\)/.exec(
            commentAbove(tour, 'order o-3 PERM-FAIL'),
          )?.[1];
          expect(steps).toBeDefined();
          expect(tableRows(output, 'ORDER')).toEqual([
            expect.objectContaining({ ORDER: 'o-3', STATE: 'Compensated', STEPS: steps }),
          ]);
        },
      },
      'npm run orders -- ops show o-3': {
        check: (output) =>
          expect(printedJson(output)).toMatchObject({
            orderId: 'o-3',
            processState: 'Compensated',
            compensationLog: expect.any(Array),
            attempts: expect.any(Array),
            alerts: expect.any(Array),
          }),
      },
      'npm run orders -- ops cancel o-1 --reason "customer changed their mind"': {
        before: () => waitForOrder('o-1', 'Processed', 'Error'),
        check: (output) => expect(output).toMatch(/^cancel: o-1 Processed -> \w+ at \S+$/m),
      },
      [badOrder]: {
        check: (output) => {
          const { errors } = JSON.parse(output) as { errors: Array<{ path: string }> };
          expect(errors.map((error) => error.path)).toEqual(expect.arrayContaining(['customerId', 'items']));
        },
      },
      [`curl -s -X POST $API/orders -H "x-api-key: $KEY" -H 'content-type: application/json' \\
  -d '{"orderId":"o-1","customerId":"someone-else","items":[{"sku":"BOOK","quantity":1}],"totalCents":1200,"currency":"EUR"}'`]:
        {
          check: (output) =>
            expect(JSON.parse(output)).toEqual({
              message: "Order 'o-1' already exists with different data; the request was not applied",
              errors: [{ path: 'customerId', message: 'differs from the accepted order' }],
            }),
        },
    });

    // The list the README shows once every order has settled.
    await waitForOrder('o-1', 'Compensated', 'CompensationFailed', 'Error');
    await waitForOrder('o-2', 'Processed', 'Error');
    const listed = /and `(npm run orders -- list)` then:/.exec(README)?.[1];
    expect(listed).toBe('npm run orders -- list');
    const shownText = blockAfter('and `npm run orders -- list` then:', '');
    const output = await run(tour, { text: listed ?? '', comment: '' });
    // States, versions and steps as shown; attempts and failures at least as shown (a step that
    // outlasts its deadline on a loaded machine is retried, as the README says under the table).
    const settled = (rows: Record<string, string>[]) =>
      rows.map(({ ORDER, STATE, VERSION, STEPS }) => ({ ORDER, STATE, VERSION, STEPS }));
    const shown = tableRows(shownText, 'ORDER');
    const listedRows = tableRows(output, 'ORDER');
    expect(settled(listedRows)).toEqual(settled(shown));
    const atLeast = (rows: Record<string, string>[]) =>
      rows.map(({ ORDER, ATTEMPT, FAILURES }) => ({
        ORDER,
        ATTEMPT: Number(ATTEMPT),
        FAILURES: Number(FAILURES),
      }));
    for (const [index, row] of atLeast(shown).entries()) {
      const seen = atLeast(listedRows)[index];
      expect(seen?.ATTEMPT).toBeGreaterThanOrEqual(row.ATTEMPT);
      expect(seen?.FAILURES).toBeGreaterThanOrEqual(row.FAILURES);
    }
    // The count line under the table.
    expect(output).toContain(shownText.trim().split('\n').at(-1) ?? '(no last line)');
  });
});

describe("the README's drone delivery tour", () => {
  const tour = parseTour(blockAfter('### Drone delivery (choreography)', 'bash'));
  const requested = (deliveryId: string) => (output: string) => {
    const delivery = JSON.parse(output) as { history: Array<{ type: string }> };
    expect(delivery).toMatchObject({ deliveryId, status: 'Requested', correlationId: `tour-${deliveryId}` });
    expect(delivery.history.map((event) => event.type)).toEqual(['DeliveryRequested']);
  };
  const trail =
    (status: string, ...entries: string[]) =>
    (output: string) => {
      expect(output).toMatch(new RegExp(`^Delivery \\S+ +status ${status} `, 'm'));
      for (const entry of entries) expect(output).toContain(entry);
    };
  const ids = (output: string) => tableRows(output, 'DELIVERY').map((row) => `${row.DELIVERY} ${row.STATUS}`);
  const d1Status = `curl -s \${API}deliveries/d-1 -H "x-api-key: $KEY"`;
  const badInput = `curl -s -X POST \${API}deliveries -H "x-api-key: $KEY" -H 'content-type: application/json' \\
  -d '{"deliveryId":"d 4","ownerId":"","pickup":{"lat":91,"lon":0},"packages":[]}'`;

  const d2Status = `curl -s \${API}deliveries/d-2 -H "x-api-key: $KEY"`;
  const BURST = ['d-4', 'd-5', 'd-6', 'd-7'];
  const burst = `sleep 30; for id in ${BURST.join(' ')}; do delivery $id "$NEAR" "$SMALL"; done`;
  // Step 4's comment: "400 with an error for packages; ... for dropoff".
  const refused = (path: string) => (output: string, command: TourCommand) => {
    expect(`${command.comment} ${commentAbove(tour, 'delivery d-2 "$NEAR" "$HEAVY"')}`).toContain(
      `for ${path}`,
    );
    expect(JSON.parse(output)).toMatchObject({
      message: 'Request body is not a valid delivery',
      errors: [{ path }],
    });
    expect(JSON.parse(output).errors).toHaveLength(1);
  };
  let failedId = '';

  it('runs as written and ends as the README says', async () => {
    await runTour(tour, {
      'delivery d-1 "$NEAR" "$SMALL"': { check: requested('d-1') },
      [d1Status]: { check: (output) => expect(JSON.parse(output)).toMatchObject({ deliveryId: 'd-1' }) },
      'npm run deliveries -- show d-1': { check: (output) => expect(output).toContain('DeliveryRequested') },
      'delivery d-2 "$NEAR" "$HEAVY"': { check: refused('packages') },
      'delivery d-3 "$FAR" "$SMALL"': { check: refused('dropoff') },
      [d2Status]: {
        check: (output) => {
          expect(JSON.parse(output)).toEqual({ message: "Delivery 'd-2' not found" });
        },
      },
      [burst]: {
        check: (output) => {
          const lines = output.trim().split('\n');
          expect(lines).toHaveLength(BURST.length);
          for (const [index, line] of lines.entries()) requested(BURST[index] as string)(line);
        },
      },
      'npm run deliveries -- list': {
        before: async () => {
          for (const id of ['d-1', ...BURST]) await waitForDelivery(id, 'Delivered', 'Failed', 'Cancelled');
        },
        check: (output) => {
          const rows = ids(output).sort();
          expect(rows[0]).toBe('d-1 Delivered');
          // Three drones, four deliveries at once: exactly one is left without a drone.
          const burstRows = rows.filter((row) => BURST.includes(row.split(' ')[0] as string));
          expect(burstRows.filter((row) => row.endsWith(' Failed'))).toHaveLength(1);
          expect(burstRows.filter((row) => row.endsWith(' Delivered'))).toHaveLength(BURST.length - 1);
          expect(rows).toHaveLength(1 + BURST.length);
        },
      },
      'npm run deliveries -- list --status Failed': {
        check: (output) => {
          const failed = ids(output);
          expect(failed).toHaveLength(1);
          failedId = (failed[0] ?? '').split(' ')[0] ?? '';
          expect(BURST).toContain(failedId);
        },
      },
      'npm run deliveries -- submit --sample': { check: (output) => expect(output).toMatch(/^HTTP 202 /m) },
      [badInput]: {
        check: (output, command) => {
          // "400 with errors for deliveryId, ownerId, pickup.lat, dropoff and packages".
          const named = /400 with errors for (.+?) \(/.exec(command.comment)?.[1];
          expect(named).toBeDefined();
          const { errors } = JSON.parse(output) as { errors: Array<{ path: string }> };
          expect(errors.map((error) => error.path)).toEqual((named ?? '').split(/, | and /));
        },
      },
      [`curl -s -X POST \${API}deliveries -H "x-api-key: $KEY" -H 'content-type: application/json' \\
  -d '{"deliveryId":"d-1","ownerId":"someone-else","pickup":{"lat":47.6062,"lon":-122.3321},"dropoff":{"lat":47.6205,"lon":-122.3493},"packages":[{"packageId":"parcel-1","weightGrams":1200,"size":"SMALL"}]}'`]:
        {
          check: (output) => {
            // Step 6's comment: "409 with an error for ownerId ("differs from the accepted delivery")".
            const [, path, message] =
              /409 with an error for (\S+) \("([^"]+)"\)/.exec(commentAbove(tour, badInput)) ?? [];
            expect(path).toBeDefined();
            expect(JSON.parse(output)).toMatchObject({ errors: [{ path, message }] });
          },
        },
    });

    // Step 5's promise, on the one of the burst left without a drone (the README says: show it).
    const ladder = await run(tour, { text: `npm run deliveries -- show ${failedId}`, comment: '' });
    trail(
      'Failed',
      'reasonCode=NO_DRONE_AVAILABLE',
      'decided RETRY',
      'decided PIVOT',
      'decided GIVE_UP',
      'DeliveryNeedsOperator',
      'DeliveryFailed',
    )(ladder);

    // Step 2's promise, once d-1 is delivered: its history as the step's comment lists it,
    // e.g. "DeliveryScheduled (delivery, 1, schemaVersion 2)".
    const watch = tour.commands.find((command) => command.text === d1Status);
    expect(watch).toBeDefined();
    const promised = [
      ...(watch?.comment ?? '').matchAll(/(\w+) \((?:([a-z-]+), )?(\d+)(?:, schemaVersion (\d+))?\)/g),
    ].map(([, type, producer, sequence, schemaVersion]) => ({
      type,
      sequence: Number(sequence),
      ...(producer && { producer }),
      ...(schemaVersion && { schemaVersion: Number(schemaVersion) }),
    }));
    expect(promised.map((event) => event.type)).toEqual([
      'DeliveryRequested',
      'DeliveryScheduled',
      'PickedUp',
      'Delivered',
    ]);
    const delivered = JSON.parse(await run(tour, watch as TourCommand)) as { history: unknown[] };
    expect(delivered).toMatchObject({ status: 'Delivered' });
    expect(delivered.history).toEqual(promised.map((event) => expect.objectContaining(event)));
  });
});
