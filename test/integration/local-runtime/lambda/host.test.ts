/**
 * The Lambda host's sandboxes run plain node, as Lambda's Node.js runtime does, whatever flags the
 * host process was started with: a host run by tsx (npm start, the bench) must not hand its loader
 * hooks and source maps to every sandbox (they cost ~6x the CPU of a cold start). And the host holds
 * to Lambda's payload quotas, timeout and reserved concurrency.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../../../lib/local-runtime';
import { VirtualClock } from '../../../../lib/local-runtime/clock';
import { type LambdaFunctionSpec, LambdaHost } from '../../../../lib/local-runtime/lambda/host';

jest.setTimeout(60_000);

interface Flags {
  readonly execArgv: readonly string[];
  readonly sourceMapsEnabled: boolean;
}

it('runs sandboxes without the host process flags (a host started with --import tsx)', () => {
  const output = execFileSync(
    process.execPath,
    ['--import', 'tsx', join(__dirname, '..', 'fixtures', 'sandbox-flags-host.ts')],
    { cwd: PROJECT_ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const { host, sandbox } = JSON.parse(output.trim().split('\n').at(-1) ?? '{}') as {
    host: Flags;
    sandbox: Flags;
  };
  // The host really has the flags a sandbox could inherit (else the test proves nothing).
  expect(host.execArgv).toEqual(expect.arrayContaining(['--import', 'tsx']));
  expect(host.sourceMapsEnabled).toBe(true);
  expect(sandbox).toEqual({ execArgv: [], sourceMapsEnabled: false });
});

/**
 * Lambda's quotas and settings as the host enforces them, each test naming the AWS page that states
 * it: payload sizes (lib/local-runtime/lambda/limits.ts), the function timeout (the sandbox killed),
 * and reserved concurrency (counted by the function itself: each invocation counts the invocations
 * running beside it).
 */
describe('Lambda host: AWS quotas, timeout and reserved concurrency', () => {
  const codeDirectory = mkdtempSync(join(tmpdir(), 'lambda-limits-'));
  const scratch = mkdtempSync(join(tmpdir(), 'lambda-limits-scratch-'));
  writeFileSync(
    join(codeDirectory, 'index.js'),
    `const fs = require('node:fs');
const path = require('node:path');
const sleep = (millis) => new Promise((resolve) => setTimeout(resolve, millis));
let serial = 0;
exports.handler = async (event) => {
  switch (event.action) {
    case 'respond': return 'x'.repeat(event.size);
    case 'mark': fs.writeFileSync(event.marker, 'ran'); return 'marked';
    case 'sleep-then-mark': await sleep(event.millis); fs.writeFileSync(event.marker, 'ran past the timeout'); return 'late';
    case 'count': {
      const mine = path.join(event.dir, require('node:worker_threads').threadId + '-' + (serial += 1));
      fs.writeFileSync(mine, '');
      const running = fs.readdirSync(event.dir).length;
      await sleep(event.millis);
      fs.rmSync(mine);
      return running;
    }
    default: return null;
  }
};
`,
  );
  const host = new LambdaHost();
  const spec = (functionName: string, settings: Partial<LambdaFunctionSpec>): LambdaFunctionSpec => ({
    logicalId: functionName,
    functionName,
    functionArn: `arn:aws:lambda:us-east-1:000000000000:function:${functionName}`,
    codeDirectory,
    handler: 'index.handler',
    environment: {},
    timeoutSeconds: 30,
    memorySizeMb: 256,
    maxConcurrency: 4,
    asyncRetryAttempts: 0,
    ...settings,
  });
  host.register(spec('payloads', {}));
  host.register(spec('short', { timeoutSeconds: 1 }));
  host.register(spec('reserved', { maxConcurrency: 2 }));

  afterAll(async () => {
    await host.stop();
    rmSync(codeDirectory, { recursive: true, force: true });
    rmSync(scratch, { recursive: true, force: true });
  });

  /** An event of exactly `bytes` of JSON: {"action":"mark","marker":"...","pad":"xxx"}. */
  const eventOf = (bytes: number, fields: Record<string, unknown>) => {
    const frame = JSON.stringify({ ...fields, pad: '' }).length;
    return { ...fields, pad: 'x'.repeat(bytes - frame) };
  };
  const waitForFile = async (file: string, millis: number) => {
    const deadline = Date.now() + millis;
    while (!existsSync(file) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 25));
    return existsSync(file);
  };

  // https://docs.aws.amazon.com/lambda/latest/api/API_Invoke.html ("For synchronous invocations,
  // the maximum payload size is 6 MB"; RequestTooLargeException)
  it('runs a synchronous invocation of 6 MB and refuses one byte more with RequestTooLargeException', async () => {
    const within = await host.invoke('payloads', eventOf(6_291_456, { action: 'none' }));
    expect(within.ok).toBe(true);
    await expect(host.invoke('payloads', eventOf(6_291_457, { action: 'none' }))).rejects.toMatchObject({
      name: 'RequestTooLargeException',
      message: 'Request must be smaller than 6291456 bytes for the InvokeFunction operation',
    });
  });

  // https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html (invocation payload:
  // "6 MB each for request and response"; Function.ResponseSizeTooLarge past 6,291,556 bytes)
  it('fails a synchronous invocation whose response is over 6,291,556 bytes with Function.ResponseSizeTooLarge', async () => {
    // A string of n characters is n + 2 bytes of JSON.
    const within = await host.invoke('payloads', { action: 'respond', size: 6_291_556 - 2 });
    expect(within.ok).toBe(true);
    expect(await host.invoke('payloads', { action: 'respond', size: 6_291_556 - 1 })).toMatchObject({
      ok: false,
      error: {
        errorType: 'Function.ResponseSizeTooLarge',
        errorMessage: 'Response payload size exceeded maximum allowed payload size (6291556 bytes).',
      },
    });
  });

  // https://docs.aws.amazon.com/lambda/latest/api/API_Invoke.html ("For asynchronous invocations,
  // the maximum payload size is 1 MB")
  it('runs an asynchronous invocation of 1 MB and refuses one byte more with RequestTooLargeException', async () => {
    const marker = join(scratch, 'async-within');
    host.invokeAsync('payloads', eventOf(1_048_576, { action: 'mark', marker }));
    expect(await waitForFile(marker, 10_000)).toBe(true);
    const refused = join(scratch, 'async-refused');
    expect(() =>
      host.invokeAsync('payloads', eventOf(1_048_577, { action: 'mark', marker: refused })),
    ).toThrow(expect.objectContaining({ name: 'RequestTooLargeException' }));
  });

  // https://docs.aws.amazon.com/lambda/latest/dg/configuration-timeout.html ("Lambda runs your code
  // for a set amount of time before timing out"; the invocation ends with "Task timed out after")
  it('kills a function at its timeout: the invocation fails with Sandbox.Timedout and the code after it never runs', async () => {
    const marker = join(scratch, 'late');
    const started = Date.now();
    const result = await host.invoke('short', { action: 'sleep-then-mark', millis: 3_000, marker });
    expect(result).toMatchObject({
      ok: false,
      error: { errorType: 'Sandbox.Timedout', errorMessage: 'Task timed out after 1.00 seconds' },
    });
    // Past the moment the handler would have written the marker, had its sandbox lived on.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, started + 5_000 - Date.now())));
    expect(existsSync(marker)).toBe(false);
  });

  // https://docs.aws.amazon.com/lambda/latest/dg/configuration-concurrency.html (reserved
  // concurrency: "the maximum number of concurrent instances for your function")
  it('never runs more invocations of a function at once than its reserved concurrency, as the function counts them', async () => {
    const dir = mkdtempSync(join(scratch, 'running-'));
    const results = await Promise.all(
      Array.from({ length: 6 }, () => host.invoke('reserved', { action: 'count', dir, millis: 300 })),
    );
    const seen = results.map((result) => (result.ok ? (result.payload as number) : Number.NaN));
    expect(Math.max(...seen)).toBe(2);
  });
});

/**
 * On a virtual clock a caller waiting for a free sandbox is parked: the invocations that hold the
 * sandboxes may themselves be waiting on the clock (a sleep, a stalled call), and a held caller
 * would keep the clock from ever reaching their timers (found with the deployed timings: an agent
 * queued behind stalled calls froze the clock until a function's wall-clock timeout).
 */
describe('Lambda host on a virtual clock', () => {
  const codeDirectory = mkdtempSync(join(tmpdir(), 'lambda-virtual-'));
  writeFileSync(
    join(codeDirectory, 'index.js'),
    [
      'exports.handler = async (event) => { await new Promise((resolve) => setTimeout(resolve, event.millis)); return Date.now(); };',
      // A timer that fires while another is pending (a heartbeat during a back-off).
      'exports.twoTimers = async () => { setTimeout(() => undefined, 1000); await new Promise((resolve) => setTimeout(resolve, 60000)); return Date.now(); };',
      // A poll loop on setInterval: ten one-minute ticks (within the 900 s timeout, on the clock).
      'exports.interval = async () => { let ticks = 0; await new Promise((resolve) => { const id = setInterval(() => { ticks += 1; if (ticks === 10) { clearInterval(id); resolve(); } }, 60000); }); return [ticks, Date.now()]; };',
      // A back-off written with node:timers/promises, and one cut short by its signal.
      "exports.promiseSleep = async () => { const { setTimeout: sleep } = require('node:timers/promises'); return [await sleep(600000, 'slept'), Date.now()]; };",
      "exports.abortedSleep = async () => { const { setTimeout: sleep } = require('node:timers/promises'); const controller = new AbortController(); setTimeout(() => controller.abort(), 1000); try { await sleep(600000, 'slept', { signal: controller.signal }); return ['slept', Date.now()]; } catch (error) { return [error.name, Date.now()]; } };",
      // The Date header of a loopback server's answer, as the AWS SDK reads it: the response callback
      // first, then a listener added after.
      "exports.serverDate = async (event) => new Promise((resolve, reject) => { const sent = require('node:http').request(event.url, (response) => { const inCallback = response.headers.date ?? null; sent.on('response', () => undefined); response.resume(); response.on('end', () => resolve([inCallback, response.headers.date ?? null])); }); sent.on('error', reject); sent.end(); });",
      '',
    ].join('\n'),
  );
  const clock = new VirtualClock({ startMillis: Date.parse('2030-01-01T00:00:00Z') });
  const host = new LambdaHost({ clock });
  host.register({
    logicalId: 'single',
    functionName: 'single',
    functionArn: 'arn:aws:lambda:us-east-1:000000000000:function:single',
    codeDirectory,
    handler: 'index.handler',
    environment: {},
    // Wall-clock timeout: without parking, the second call would wait for it (a whole minute).
    timeoutSeconds: 900,
    memorySizeMb: 256,
    maxConcurrency: 1,
    asyncRetryAttempts: 0,
  });
  host.register({
    logicalId: 'twoTimers',
    functionName: 'twoTimers',
    functionArn: 'arn:aws:lambda:us-east-1:000000000000:function:twoTimers',
    codeDirectory,
    handler: 'index.twoTimers',
    environment: {},
    timeoutSeconds: 900,
    memorySizeMb: 256,
    maxConcurrency: 1,
    asyncRetryAttempts: 0,
  });

  for (const name of ['interval', 'promiseSleep', 'abortedSleep', 'serverDate']) {
    host.register({
      logicalId: name,
      functionName: name,
      functionArn: `arn:aws:lambda:us-east-1:000000000000:function:${name}`,
      codeDirectory,
      handler: `index.${name}`,
      environment: {},
      // On the wall clock these would wait 10 minutes: the test's own timeout fails them first.
      timeoutSeconds: 900,
      memorySizeMb: 256,
      maxConcurrency: 1,
      asyncRetryAttempts: 0,
    });
  }

  afterAll(async () => {
    await host.stop();
    clock.stop();
    rmSync(codeDirectory, { recursive: true, force: true });
  });

  /** The handler's `[value, Date.now()]`, with the time made relative to `start`. */
  const valueAndElapsed = async (name: string, start: number) => {
    const result = await host.invoke(name, {});
    expect(result).toMatchObject({ ok: true });
    const [value, now] = (result.ok ? result.payload : []) as [unknown, number];
    return [value, now - start] as const;
  };

  it('fires a setInterval on the clock: ten one-minute ticks without ten minutes of waiting', async () => {
    const [ticks, elapsed] = await valueAndElapsed('interval', clock.now());
    expect(ticks).toBe(10);
    expect(elapsed).toBeGreaterThanOrEqual(600_000);
    expect(elapsed).toBeLessThan(601_000);
  });

  it('sleeps with node:timers/promises on the clock, and its AbortSignal cuts the sleep short', async () => {
    const [value, elapsed] = await valueAndElapsed('promiseSleep', clock.now());
    expect(value).toBe('slept');
    expect(elapsed).toBeGreaterThanOrEqual(600_000);
    expect(elapsed).toBeLessThan(601_000);
    const [outcome, abortedAfter] = await valueAndElapsed('abortedSleep', clock.now());
    expect(outcome).toBe('AbortError');
    expect(abortedAfter).toBeGreaterThanOrEqual(1_000);
    expect(abortedAfter).toBeLessThan(2_000);
  });

  it('parks a caller queued for the one sandbox, so the clock reaches the running sleep and then its own', async () => {
    const start = clock.now();
    const first = host.invoke('single', { millis: 60_000 });
    // A caller that holds the clock (a request being served) and then waits for the function.
    const caller = clock.hold('caller');
    const second = clock.within(caller, () => host.invoke('single', { millis: 60_000 }));
    const [firstResult, secondResult] = await Promise.all([first, second]);
    caller.release();
    expect(firstResult).toMatchObject({ ok: true });
    expect(secondResult).toMatchObject({ ok: true });
    const ends = [firstResult, secondResult].map((result) =>
      result.ok ? Number(result.payload) - start : 0,
    );
    // One after the other on the one sandbox: a minute each, on the clock.
    expect(ends[0]).toBeGreaterThanOrEqual(60_000);
    expect(ends[1]).toBeGreaterThanOrEqual(120_000);
    expect(ends[1]).toBeLessThan(121_000);
  });

  it("hides the machine's Date of a loopback server's answer from the sandbox, whose time is the clock's", async () => {
    // The AWS SDK corrects its clock by the Date of an answer and retries an error it answered
    // across a correction over 4 minutes: with the machine's Date and a clock ahead of it, an error
    // was retried or not as the machine's seconds went.
    const server = createServer((_request, response) => response.end('ok'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
      const result = await host.invoke('serverDate', { url });
      expect(result).toMatchObject({ ok: true, payload: [null, null] });
    } finally {
      server.close();
    }
  });

  it('parks an invocation again after one of its timers fires while it still waits on another', async () => {
    // Found with the deployed timings: an agent's timer fired during its back-off, the host resumed
    // its hold to run the callback and was never told it waited again, so the clock stood still
    // until the function's wall-clock timeout. Without the fix this call never returns.
    const start = clock.now();
    const result = await host.invoke('twoTimers', {});
    expect(result).toMatchObject({ ok: true });
    const ended = result.ok ? Number(result.payload) - start : 0;
    expect(ended).toBeGreaterThanOrEqual(60_000);
    expect(ended).toBeLessThan(61_000);
  });
});

/**
 * On a seeded clock a sandbox's randomness is the seed's (issue 22, item 4): what a function mints
 * (Math.random, node:crypto's and Web Crypto's UUIDs and random bytes) is the same in a replay, and
 * differs with another seed; without a seed it is random.
 */
describe('Lambda host: a sandbox on a seeded clock', () => {
  const codeDirectory = mkdtempSync(join(tmpdir(), 'lambda-seeded-'));
  writeFileSync(
    join(codeDirectory, 'index.js'),
    `const crypto = require('node:crypto');
exports.handler = async () => [
  Math.random(),
  crypto.randomUUID(),
  crypto.randomBytes(6).toString('hex'),
  Buffer.from(crypto.randomFillSync(Buffer.alloc(4))).toString('hex'),
  globalThis.crypto.randomUUID(),
  Buffer.from(globalThis.crypto.getRandomValues(new Uint8Array(4))).toString('hex'),
];
// Leaves a timer pending when it answers (an AbortSignal.timeout never cleared, say).
exports.leave = async () => {
  setTimeout(() => undefined, 60000);
  return 'left';
};
`,
  );
  afterAll(() => rmSync(codeDirectory, { recursive: true, force: true }));

  /** Runs `work` on a new host whose clock is seeded `seed`, with `handler` as function 'fn'. */
  const onHost = async <T>(
    seed: number | undefined,
    handler: string,
    work: (host: LambdaHost, clock: VirtualClock) => Promise<T>,
  ): Promise<T> => {
    const clock = new VirtualClock(seed === undefined ? {} : { seed });
    const host = new LambdaHost({ clock });
    host.register({
      logicalId: 'fn',
      functionName: 'fn',
      functionArn: 'arn:aws:lambda:us-east-1:000000000000:function:fn',
      codeDirectory,
      handler,
      environment: {},
      timeoutSeconds: 30,
      memorySizeMb: 128,
      maxConcurrency: 1,
      asyncRetryAttempts: 0,
    });
    try {
      return await work(host, clock);
    } finally {
      await host.stop();
      clock.stop();
    }
  };

  /** What the function mints in two invocations on a new host whose clock is seeded `seed`. */
  const minted = (seed: number | undefined) =>
    onHost(seed, 'index.handler', async (host) => {
      const results = [await host.invoke('fn', {}), await host.invoke('fn', {})];
      return results.map((result) => (result.ok ? result.payload : result));
    });

  it('mints the same for the same seed, else otherwise', async () => {
    const first = await minted(4);
    expect(first[0]).toHaveLength(6);
    expect(first[0]).not.toEqual(first[1]);
    expect(await minted(4)).toEqual(first);
    expect(await minted(5)).not.toEqual(first);
    const unseeded = await minted(undefined);
    expect(await minted(undefined)).not.toEqual(unseeded);
  });

  it('drops the timers a sandbox leaves pending when it answers, as a frozen sandbox does not run them', async () => {
    const pendingAfter = (seed: number | undefined) =>
      onHost(seed, 'index.leave', async (host, clock) => {
        expect(await host.invoke('fn', {})).toMatchObject({ ok: true, payload: 'left' });
        return clock.nextDueIn();
      });
    expect(await pendingAfter(4)).toBeUndefined();
    // Without a seed the timer stays armed on the clock, as before.
    expect(await pendingAfter(undefined)).toBe(60_000);
  });
});
