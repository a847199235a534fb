/**
 * The operator console in a real browser (Debian's chromium, driven by playwright-core) against
 * the system under test: orders and deliveries are submitted through the APIs, and every check is
 * what the page shows as they move, without a reload. The console's backend runs here, on a free
 * port, built from the target description like the other suites' clients.
 *
 * Screenshots of the main views are written to CONSOLE_SCREENSHOTS when it names a directory
 * (`CONSOLE_SCREENSHOTS=docs/console npx jest test/acceptance/console` refreshes the README's),
 * else to .local/acceptance/console-screenshots.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import type { Browser, Page } from 'playwright-core';
import { buildConsoleAssets } from '../../../bin/console-build';
import { type ConsoleBackend, type ConsoleServer, startConsoleServer } from '../../../bin/console-server';
import type { DeliveryListBody } from '../../../console/contract/console-api';
import { DASHBOARD_STATES, DASHBOARD_STATUSES } from '../../../console/contract/dashboard';
import { awsEndpoint, DeliveryOperatorClient } from '../../../lib/harness/operator-client';
import { PROJECT_ROOT } from '../../../lib/local-runtime';
import { DeliverySystemClient } from '../choreography/system-client';
import { awsClientConfig } from '../client-support';
import { SystemClient } from '../scheduler-agent-supervisor/system-client';
import { acceptanceTarget, scenarioTimeoutMs } from '../setup';
import { DELIVERIES_APP } from '../target';
import { launchBrowser } from './browser';
import * as dashboard from './dashboard-page';

const runId = randomUUID().slice(0, 8);
const orderIdOf = (name: string) => `console-${runId}-${name}`;
const order = (id: string, sku = 'SKU-1') => ({
  orderId: id,
  customerId: 'customer-console',
  items: [{ sku, quantity: 1 }],
  totalCents: 1999,
  currency: 'EUR',
});
const ids = {
  processed: orderIdOf('done'),
  stalled: orderIdOf('stall'),
  outage: orderIdOf('outage'),
  cancelled: orderIdOf('cancel'),
  stale: orderIdOf('stale'),
  delivery: `console-${runId}-delivery`,
  farDelivery: `console-${runId}-far`,
};
// About 2 km apart in Seattle (within any drone's range); Sydney is beyond every drone's range.
const SEATTLE = { lat: 47.6062, lon: -122.3321 };
const NEARBY = { lat: 47.6205, lon: -122.3493 };
const SYDNEY = { lat: -33.8688, lon: 151.2093 };
const delivery = (id: string, dropoff = NEARBY) => ({
  deliveryId: id,
  ownerId: 'owner-console',
  pickup: SEATTLE,
  dropoff,
  packages: [{ packageId: 'parcel-1', weightGrams: 1200, size: 'SMALL' as const }],
});
/** An OUTAGE order reaches Error after maxFailures expired attempts (see operator.test.ts). */
const UNTIL_ERROR_MS = 2 * scenarioTimeoutMs.recovery;

const SCREENSHOTS = resolve(
  PROJECT_ROOT,
  process.env.CONSOLE_SCREENSHOTS ?? '.local/acceptance/console-screenshots',
);
const ASSETS = resolve(PROJECT_ROOT, '.local/acceptance/console-assets');

let orders: SystemClient;
let deliveries: DeliverySystemClient;
let backend: ConsoleBackend;
let server: ConsoleServer;
let browser: Browser;
let page: Page;

/** The console's backend for whatever target the suite runs against (local, LocalStack, AWS). */
function backendFor(): ConsoleBackend {
  const target = acceptanceTarget();
  const deliveryTarget = acceptanceTarget(DELIVERIES_APP);
  const cloudWatch = new CloudWatchClient(awsClientConfig(target, 'cloudwatch'));
  // The delivery API's operator routes, signed as the orders' operator is (the local operator, or
  // on AWS the standard credential chain).
  const operator = deliveryTarget.identities?.operator;
  const apiUrl = deliveryTarget.outputs.ApiUrl;
  return {
    operator: orders.operator(),
    cloudWatch,
    deliveries: new DeliveryOperatorClient(
      operator
        ? {
            apiUrl,
            region: deliveryTarget.region,
            credentials: { accessKeyId: operator.accessKeyId, secretAccessKey: operator.secretAccessKey },
          }
        : awsEndpoint(apiUrl, deliveryTarget.region),
    ),
    close: () => cloudWatch.destroy(),
  };
}

beforeAll(async () => {
  // First, so a machine without a browser fails at once, saying how to install one.
  browser = await launchBrowser();
  orders = new SystemClient(acceptanceTarget());
  deliveries = new DeliverySystemClient(acceptanceTarget(DELIVERIES_APP));
  // One order through every function first: on a runtime that just started (this file may run
  // first), cold sandboxes on a loaded machine can outlast the local profile's step deadline, and a
  // STALL-ONCE order would then fail more than once. The scenarios are about the console, not that.
  const warmUp = orderIdOf('warm-up');
  expect((await orders.submit(order(warmUp))).status).toBe(202);
  await orders.waitForState(warmUp, ['Processed'], scenarioTimeoutMs.recovery);
  // Submitted together so the slow scenarios (STALL-ONCE, OUTAGE) run while the quick ones are checked.
  const submitted = await Promise.all([
    orders.submit(order(ids.processed)),
    orders.submit(order(ids.stalled, 'STALL-ONCE')),
    orders.submit(order(ids.outage, 'OUTAGE')),
    orders.submit(order(ids.cancelled)),
    orders.submit(order(ids.stale)),
    deliveries.submit(delivery(ids.delivery)),
  ]);
  expect(submitted.map((response) => response.status)).toEqual([202, 202, 202, 202, 202, 202]);
  // The API refuses a drop-off out of range (400): this one is accepted past the door, as one
  // accepted before the range shrank, so the console has a give-up to show.
  expect((await deliveries.acceptPastTheDoor(delivery(ids.farDelivery, SYDNEY))).kind).toBe('accepted');
  buildConsoleAssets({ outDir: ASSETS });
  backend = backendFor();
  server = await startConsoleServer({ backend: () => backend, port: 0, assetsDir: ASSETS });
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  mkdirSync(SCREENSHOTS, { recursive: true });
}, scenarioTimeoutMs.recovery + 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  backend?.close();
  orders?.close();
  deliveries?.close();
});

const open = (hash: string) => page.goto(`${server.url}${hash}`);
const orderState = () => page.getByTestId('order-state');

describe('orders', () => {
  it('an order submitted through the API reaches Processed on its page, which updates without reload', async () => {
    await open(`#/orders/${ids.processed}`);
    await expectText(orderState(), 'Processed', scenarioTimeoutMs.normal);
    const timeline = page.getByRole('region', { name: 'Timeline' });
    await expectContains(timeline, 'Attempt 1 started');
    await expectContains(timeline, 'ScheduleShipping completed');
    await expectContains(timeline, 'client told Completed');
    // Its workflow graph: the states entered up to Processed, none failed, no compensation.
    const workflow = page.getByRole('region', { name: 'Workflow' });
    await expectContains(page.getByTestId('workflow-summary'), 'SUCCEEDED;', scenarioTimeoutMs.normal);
    await expectContains(page.getByTestId('workflow-summary'), 'no failed state; no compensation');
    expect(await workflow.locator('[data-state][data-outcome="Failed"]').count()).toBe(0);
    const entered = workflow.locator('[data-testid="workflow-path"] li');
    expect(await entered.last().getAttribute('data-state')).toBe('Processed');
    expect(await workflow.locator('g[data-state][data-outcome="Succeeded"]').count()).toBe(
      await entered.count(),
    );
    await workflow.locator('g[data-state="Processed"]').focus();
    await expectContains(page.getByTestId('workflow-detail'), 'Processed (Succeed): entered, succeeded');
  });

  it('the list of Processed orders counts them, shows the order and opens it', async () => {
    await open('#/orders?state=Processed');
    const row = page.locator(`tr[data-order-id="${ids.processed}"]`);
    await row.waitFor({ timeout: scenarioTimeoutMs.normal });
    await expectText(page.locator('[data-count-state="Processed"] .count'), /^[1-9]\d*\+?$/);
    await page.screenshot({ path: resolve(SCREENSHOTS, 'orders-list.png'), fullPage: true });
    await row.getByRole('link', { name: ids.processed }).click();
    await expectText(orderState(), 'Processed');
  });

  it('the search opens an order by id, from the keyboard', async () => {
    await open('#/orders');
    const search = page.getByLabel('Order id');
    await search.focus();
    await page.keyboard.type(ids.processed);
    await page.keyboard.press('Enter');
    await expectText(orderState(), 'Processed');
  });

  it('a STALL-ONCE order shows its recovery: the failure counted, a second attempt, the timed-out call and the completed one, Processed', async () => {
    await open(`#/orders/${ids.stalled}`);
    await expectText(orderState(), 'Processed', scenarioTimeoutMs.recovery);
    // One failure when the machine keeps up; under load a second attempt may expire too. Either
    // way the page must show the recovery: failures counted, a later attempt, Processed.
    await expectText(page.getByTestId('failure-count'), /^[12]$/);
    const timeline = page.getByRole('region', { name: 'Timeline' });
    await expectContains(timeline, 'Attempt 2 started');
    // Every attempt's step runs, not only each step's latest: the payment call that got no answer
    // in time shows next to the one that completed (the steps table shows only the latter).
    await expectContains(timeline, 'ChargePayment timed out');
    await expectContains(timeline, 'ChargePayment completed');
    // The chart of the same order: a lane per attempt, the payment call that timed out a bar of its
    // own, the supervisor's reset a mark; a bar reached from the keyboard says what it was.
    const chart = page.getByRole('region', { name: 'Timeline chart' });
    expect(await chart.locator('[data-lane^="attempt-"]').count()).toBeGreaterThanOrEqual(2);
    expect(await chart.locator('[data-mark="reset"]').count()).toBeGreaterThanOrEqual(1);
    const timedOut = chart.locator('[data-outcome="timed-out"]').first();
    await timedOut.focus();
    await expectContains(page.getByTestId('chart-detail'), 'Attempt 1: ChargePayment timed out');
    await page.screenshot({ path: resolve(SCREENSHOTS, 'order-timeline.png'), fullPage: true });
  });

  it('a Processed order offers Cancel and not Retry, saying why before any click', async () => {
    await open(`#/orders/${ids.processed}`);
    await expectText(orderState(), 'Processed', scenarioTimeoutMs.normal);
    expect(await actionButton('Retry…').isDisabled()).toBe(true);
    await expectText(
      page.getByTestId('retry-unavailable'),
      'Retry applies to Error, CompensationFailed; this order is Processed',
    );
    expect(await actionButton('Cancel order…').isDisabled()).toBe(false);
    expect(await page.getByTestId('cancel-unavailable').count()).toBe(0);
    // Its execution has ended: the workflow is not read again on a timer (the order's detail is).
    await expectContains(page.getByTestId('workflow-summary'), 'SUCCEEDED;', scenarioTimeoutMs.normal);
    const reads: string[] = [];
    const count = (request: { url(): string }) => {
      if (request.url().includes('/api/orders/'))
        reads.push(request.url().endsWith('/workflow') ? 'workflow' : 'order');
    };
    page.on('request', count);
    await new Promise((resolveWait) => setTimeout(resolveWait, 2_500));
    page.off('request', count);
    expect(reads).toContain('order');
    expect(reads).not.toContain('workflow');
  });

  it('a stale click is still refused by the API, and the 409 reason shows in words', async () => {
    await open(`#/orders/${ids.stale}`);
    await expectText(orderState(), 'Processed', scenarioTimeoutMs.normal);
    await askFor('Cancel order…', 'checking the refusal');
    // Another operator cancels it while this one's dialog is open: the page's click is now stale.
    const operator = orders.operator();
    const seen = await operator.show(ids.stale);
    const elsewhere = await operator.act('cancel', ids.stale, {
      reason: 'cancelled by another operator',
      expectedState: 'Processed',
      expectedUpdatedAt: seen.body.updatedAt,
    });
    expect(elsewhere.status).toBe(200);
    await confirmAction();
    await expectContains(page.getByRole('alert'), 'Not allowed: Cannot cancel an order in state Compensat');
  });

  it('cancelling a Processed order from the page, after confirming, ends Compensated, where neither action applies', async () => {
    await open(`#/orders/${ids.cancelled}`);
    await expectText(orderState(), 'Processed', scenarioTimeoutMs.normal);
    await act('Cancel order…', 'customer withdrew the order');
    await expectContains(
      page.getByRole('status').filter({ hasText: 'Done' }),
      'Done: cancel moved the order to',
    );
    await expectText(orderState(), 'Compensated', scenarioTimeoutMs.normal);
    const log = page.getByRole('region', { name: 'Operator log' });
    await expectContains(log, 'customer withdrew the order');
    // Its chart: the compensation's lane with the undone steps, and the operator's cancel a mark.
    const chart = page.getByRole('region', { name: 'Timeline chart' });
    await chart.locator('[data-lane="compensation"] [data-outcome="compensated"]').first().waitFor();
    expect(await chart.locator('[data-mark="operator"]').count()).toBe(1);
    // Its workflow: the cancel's attempt took the compensation path from CheckLock to Compensated.
    const workflow = page.getByRole('region', { name: 'Workflow' });
    await expectContains(
      page.getByTestId('workflow-summary'),
      'the compensation path was taken',
      scenarioTimeoutMs.normal,
    );
    // Its last state may be entered a moment after the record reads Compensated.
    await workflow
      .locator('g[data-state="Compensated"][data-outcome="Succeeded"]')
      .waitFor({ timeout: scenarioTimeoutMs.normal });
    expect(
      await workflow.locator('g[data-compensation="true"][data-outcome="Succeeded"]').count(),
    ).toBeGreaterThanOrEqual(4);
    // Wide and tall enough for the whole graph in its box (it scrolls in a smaller window).
    const viewport = page.viewportSize();
    await page.setViewportSize({ width: 1920, height: 1700 });
    await workflow.screenshot({ path: resolve(SCREENSHOTS, 'order-workflow.png') });
    if (viewport) await page.setViewportSize(viewport);
    expect(await actionButton('Retry…').isDisabled()).toBe(true);
    expect(await actionButton('Cancel order…').isDisabled()).toBe(true);
    await expectText(
      page.getByTestId('cancel-unavailable'),
      'Cancel applies to Pending, Processed, Error; this order is Compensated',
    );
    await expectText(
      page.getByTestId('retry-unavailable'),
      'Retry applies to Error, CompensationFailed; this order is Compensated',
    );
  });

  it(
    'an Error order is retried from the page: confirmed, recorded, and back to work',
    async () => {
      await open(`#/orders/${ids.outage}`);
      await expectText(orderState(), 'Error', UNTIL_ERROR_MS);
      // Its latest attempt's workflow marks the state it failed in, red and in words.
      const workflow = page.getByRole('region', { name: 'Workflow' });
      const failed = workflow.locator('g[data-state][data-outcome="Failed"]').first();
      await failed.waitFor({ timeout: scenarioTimeoutMs.normal });
      expect(await failed.textContent()).toContain('— failed');
      await failed.focus();
      await expectContains(page.getByTestId('workflow-detail'), 'failed');
      await expectContains(
        workflow.locator('[data-testid="workflow-path"] li[data-outcome="Failed"]'),
        'failed',
      );
      await act('Retry…', 'the provider says the outage is over');
      await expectContains(
        page.getByRole('status').filter({ hasText: 'Done' }),
        'Done: retry moved the order to Pending',
      );
      await expectContains(
        page.getByRole('region', { name: 'Operator log' }),
        'the provider says the outage is over',
      );
    },
    UNTIL_ERROR_MS + 60_000,
  );

  it('an unknown order is reported in words, not a blank page', async () => {
    await open(`#/orders/console-${runId}-nobody`);
    await expectContains(page.getByRole('alert'), '404');
  });
});

describe('deliveries', () => {
  it("a delivery's page shows it Delivered and its trail across services, with its correlation id", async () => {
    await open(`#/deliveries/${ids.delivery}`);
    await expectText(page.getByTestId('delivery-status'), 'Delivered', scenarioTimeoutMs.normal);
    const trail = page.getByRole('region', { name: 'Trail across services' });
    for (const event of ['DeliveryRequested', 'DeliveryScheduled', 'PickedUp', 'Delivered'])
      await expectContains(trail, event);
    for (const service of ['ingestion', 'drone-scheduler', 'delivery']) await expectContains(trail, service);
    await expectContains(
      page.getByRole('region', { name: 'Dead letters and remediation' }),
      'No dead-lettered',
    );
    // Its swimlane: every lane, a mark per event the trail lists, no dead letter.
    const drawn = await swimlaneCounts();
    expect(drawn.lanes).toHaveLength(5);
    expect([drawn.eventMarks, drawn.deadLetterMarks]).toEqual([drawn.events, 0]);
    expect(drawn.events).toBeGreaterThanOrEqual(4);
    await page.screenshot({ path: resolve(SCREENSHOTS, 'delivery-trail.png'), fullPage: true });
  });

  it('a delivery no drone can reach shows its dead letters, their reason code and what remediation decided', async () => {
    await open(`#/deliveries/${ids.farDelivery}`);
    await expectText(page.getByTestId('delivery-status'), 'Failed', scenarioTimeoutMs.recovery);
    const deadLetters = page.getByRole('region', { name: 'Dead letters and remediation' });
    await expectContains(deadLetters, 'NO_DRONE_AVAILABLE');
    for (const decision of ['decided RETRY', 'decided PIVOT', 'decided GIVE_UP'])
      await expectContains(deadLetters, decision);
    await expectSwimlaneOfTrail();
    await page.screenshot({ path: resolve(SCREENSHOTS, 'delivery-dead-letters.png'), fullPage: true });
  });

  it('lists the deliveries of one status from the read model, and refuses a status that does not exist in words', async () => {
    const delivered = await fetch(`${server.url}api/deliveries?status=Delivered`);
    expect(delivered.status).toBe(200);
    const { items } = (await delivered.json()) as DeliveryListBody;
    expect(items.map((row) => row.deliveryId)).toContain(ids.delivery);
    expect(items.filter((row) => row.status !== 'Delivered')).toEqual([]);
    const lost = await fetch(`${server.url}api/deliveries?status=Lost`);
    expect(lost.status).toBe(400);
    expect(((await lost.json()) as { message: string }).message).toBe(
      'status must be one of Requested, Correlating, Scheduled, PickedUp, Delivered, Failed, Cancelled',
    );
  });
});

describe('the dashboard', () => {
  it('shows the alarms firing on top, then a chart per state and per status whose hour counts what this test saw, as its table says', async () => {
    await open('#/dashboard');
    // The alarms first: the firing ones spelled out, or in words that none fires.
    await expectText(page.locator('#alarms-title .summary'), /firing\)$/);
    const alarms = await dashboard.alarmsOnTop(page);
    expect(alarms.summary).toMatch(
      alarms.firing.length === 0 ? /none firing/ : `(${alarms.firing.length} of `,
    );
    for (const alarm of alarms.firing) expect(alarm).toMatch(/^ALARM (Orders: |Deliveries: )?\S+: \S/);
    const { from, to } = await dashboard.shownHour(page, scenarioTimeoutMs.normal);
    expect((await dashboard.drawnSeries(page, 'orders')).map(({ name }) => name)).toEqual(DASHBOARD_STATES);
    expect((await dashboard.drawnSeries(page, 'deliveries')).map(({ name }) => name)).toEqual(
      DASHBOARD_STATUSES,
    );
    // Its hour is the clock's the metrics are stamped on (on the virtual clock far from the
    // machine's): it holds the last thing this test did, the OUTAGE order's retry.
    const within = (at = '') => at >= from && at < to;
    const operator = orders.operator();
    const { operatorLog } = (await operator.show(ids.outage)).body;
    const retriedAt = operatorLog.find((entry) => entry.action === 'retry')?.at;
    expect([retriedAt, from, to, within(retriedAt)]).toEqual([retriedAt, from, to, true]);
    // The orders this test saw reach Processed (and stay there) in that hour, and the delivery it
    // saw Delivered, are counted (the page reads the metrics every 30 s: one read may be needed).
    const processed = (
      await Promise.all(['warm-up', 'done', 'stall'].map((name) => operator.show(orderIdOf(name))))
    ).filter(({ body }) => body.processState === 'Processed' && within(body.updatedAt)).length;
    const delivered = (await backend.deliveries?.show(ids.delivery))?.body.status;
    const deliveredWithin = delivered?.status === 'Delivered' && within(delivered.updatedAt) ? 1 : 0;
    expect(processed).toBeGreaterThanOrEqual(1);
    await dashboard.expectCountedAtLeast(
      page,
      [
        { group: 'orders', name: 'Processed', atLeast: processed },
        { group: 'deliveries', name: 'Delivered', atLeast: deliveredWithin },
      ],
      45_000,
    );
    // Each chart draws its total, and its row of the table (the text equivalent) says the same.
    await dashboard.expectChartsAsTheirTables(page);
    // Tab from the Pending chart reaches Processing's, then Processed's, which says its summary.
    await dashboard.chartOf(page, 'orders', 'Pending').focus();
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    const total = await dashboard.totalOf(page, 'orders', 'Processed');
    await expectText(
      page.getByTestId('dashboard-orders-detail'),
      new RegExp(
        `^Processed: ${total} entered in the last hour, at most \\d+ in a minute, at \\d\\d:\\d\\d(; \\d+\\+? now)?$`,
      ),
    );
    expect(await dashboard.chartOf(page, 'orders', 'Processed').getAttribute('aria-label')).toBe(
      await page.getByTestId('dashboard-orders-detail').textContent(),
    );
    await page.screenshot({ path: resolve(SCREENSHOTS, 'dashboard.png'), fullPage: true });
  });

  it('fits a phone: no overflow, every chart and its table readable (4.5:1)', async () => {
    const phone = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await phone.goto(`${server.url}#/dashboard`);
    await dashboard.shownHour(phone, scenarioTimeoutMs.normal);
    const overflow = await phone.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
    expect(overflow).toBeLessThanOrEqual(0);
    expect(await phone.evaluate<string[]>(LOW_CONTRAST_TEXT)).toEqual([]);
    await phone.close();
  });
});

describe('the backend', () => {
  it('acts only for its own page: a cross-site, non-JSON or malformed action is refused before reaching the API', async () => {
    const action = `${server.url}api/orders/${ids.processed}/cancel`;
    const body = JSON.stringify({
      reason: 'from elsewhere',
      expectedState: 'Processed',
      expectedUpdatedAt: 'x',
    });
    const crossSite = await fetch(action, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'https://elsewhere.example' },
      body,
    });
    expect(crossSite.status).toBe(403);
    const form = await fetch(action, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body,
    });
    expect(form.status).toBe(415);
    const json = { 'content-type': 'application/json' };
    const notJson = await fetch(action, { method: 'POST', headers: json, body: '{reason' });
    expect({ status: notJson.status, body: await notJson.json() }).toEqual({
      status: 400,
      body: { message: 'The action is not JSON' },
    });
    const noReason = await fetch(action, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ expectedState: 'Processed', expectedUpdatedAt: 'x' }),
    });
    expect(noReason.status).toBe(400);
    expect(((await noReason.json()) as { message: string }).message).toContain('reason');
  });

  it('serves the page for any path under /console/ and nothing outside its assets', async () => {
    const outside = await fetch(`${server.url}..%2F..%2Fpackage.json`);
    expect(outside.headers.get('content-type')).toContain('text/html');
    expect(await outside.text()).toContain('<div id="root">');
  });
});

describe('usable by everyone', () => {
  it('at phone width the order page fits the screen, every control has a label, all text is readable (4.5:1)', async () => {
    const phone = await browser.newPage({ viewport: { width: 390, height: 844 } });
    try {
      await phone.goto(`${server.url}#/orders/${ids.processed}`);
      await expectText(phone.getByTestId('order-state'), 'Processed');
      // Evaluated in the page (as text: this project's TypeScript knows no DOM).
      const overflow = await phone.evaluate<number>(
        'document.documentElement.scrollWidth - window.innerWidth',
      );
      expect(overflow).toBeLessThanOrEqual(0);
      const unlabelled = await phone.evaluate<string[]>(`
        [...document.querySelectorAll('input, select, textarea, button')]
          .filter((control) => (control.labels?.length ?? 0) === 0 && !control.textContent.trim() && !control.ariaLabel)
          .map((control) => control.outerHTML)`);
      expect(unlabelled).toEqual([]);
      await phone.screenshot({ path: resolve(SCREENSHOTS, 'order-phone.png'), fullPage: true });
      expect(await phone.evaluate<string[]>(LOW_CONTRAST_TEXT)).toEqual([]);
      await phone.goto(`${server.url}#/orders?state=Processed`);
      await phone.locator(`tr[data-order-id="${ids.processed}"]`).waitFor();
      expect(await phone.evaluate<string[]>(LOW_CONTRAST_TEXT)).toEqual([]);
    } finally {
      await phone.close();
    }
  });
});

/**
 * Run in the page: every element that shows text of its own (disabled controls aside, which WCAG
 * exempts) whose text colour has less than 4.5:1 contrast with the first opaque background behind
 * it (WCAG 2 relative luminance). Answers `text (ratio)` for each, empty when all are readable.
 */
const LOW_CONTRAST_TEXT = `(() => {
  const rgb = (colour) => (colour.match(/[\\d.]+/g) || []).map(Number);
  const luminance = ([r, g, b]) => {
    const linear = (value) => {
      const channel = value / 255;
      return channel <= 0.03928 ? channel / 12.92 : ((channel + 0.055) / 1.055) ** 2.4;
    };
    return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
  };
  const background = (element) => {
    for (let node = element; node; node = node.parentElement) {
      const [r, g, b, alpha = 1] = rgb(getComputedStyle(node).backgroundColor);
      if (alpha > 0.5) return [r, g, b];
    }
    return [255, 255, 255];
  };
  const low = [];
  for (const element of document.querySelectorAll('body *')) {
    const ownText = [...element.childNodes].some((node) => node.nodeType === 3 && node.textContent.trim());
    if (!ownText || element.closest(':disabled') || !element.checkVisibility()) continue;
    const [l1, l2] = [luminance(rgb(getComputedStyle(element).color)), luminance(background(element))];
    const ratio = (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05);
    if (ratio < 4.5) low.push(element.textContent.trim().slice(0, 40) + ' (' + ratio.toFixed(2) + ')');
  }
  return low;
})()`;

const actionButton = (name: string) => page.getByRole('button', { name, exact: true });

/** Opens the action's dialog, gives the reason and confirms, all from the keyboard. */
async function act(button: string, reason: string): Promise<void> {
  await askFor(button, reason);
  await confirmAction();
}

/** Opens the action's dialog and gives the reason (the dialog stays open). */
async function askFor(button: string, reason: string): Promise<void> {
  await actionButton(button).click();
  await page.getByRole('dialog').getByLabel('Reason').fill(reason);
}

/** Confirms the open dialog from the keyboard (Tab to its confirm button, Enter). */
async function confirmAction(): Promise<void> {
  const dialog = page.getByRole('dialog');
  await dialog.getByLabel('Reason').press('Tab');
  await page.keyboard.press('Enter');
  await dialog.waitFor({ state: 'hidden' });
}

type Locator = ReturnType<Page['locator']>;

/** What the swimlane and the trail table show, counted together. */
interface SwimlaneCounts {
  readonly lanes: readonly string[];
  readonly events: number;
  readonly eventMarks: number;
  readonly deadLetters: number;
  readonly deadLetterMarks: number;
  readonly decisionMarks: number;
}

/** The swimlane's lanes and marks and the trail table's rows, read in one go (the page polls). */
function swimlaneCounts(): Promise<SwimlaneCounts> {
  return page.evaluate<SwimlaneCounts>(`(() => {
    const region = document.querySelector('[aria-labelledby="section-trail-across-services"]');
    const count = (selector) => region.querySelectorAll(selector).length;
    return {
      lanes: [...region.querySelectorAll('[data-lane]')].map((lane) => lane.getAttribute('data-lane')),
      events: count('tr.kind-event'),
      eventMarks: count('[data-mark="event"], [data-mark="decision"]'),
      deadLetters: count('tr.kind-dead-letter'),
      deadLetterMarks: count('[data-lane="drone-scheduler"] [data-mark="dead-letter"]'),
      decisionMarks: count('[data-lane="remediation"] [data-mark="decision"]'),
    };
  })()`);
}

/**
 * The delivery's swimlane against its trail table, read in one go (the page polls): a lane per
 * service in the flow's order, a mark per published event, the dead letters on the drone scheduler's
 * lane and the decisions on remediation's; the first event focused says its type, sequence and
 * correlation id.
 */
async function expectSwimlaneOfTrail(): Promise<void> {
  const trail = page.getByRole('region', { name: 'Trail across services' });
  const swimlane = trail.locator('figure.delivery-swimlane');
  const drawn = await swimlaneCounts();
  expect(drawn).toEqual({
    lanes: ['ingestion', 'package', 'drone-scheduler', 'delivery', 'remediation'],
    events: drawn.eventMarks,
    eventMarks: expect.any(Number),
    deadLetters: drawn.deadLetterMarks,
    deadLetterMarks: expect.any(Number),
    decisionMarks: expect.any(Number),
  });
  expect(drawn.deadLetterMarks).toBeGreaterThanOrEqual(3);
  expect(drawn.decisionMarks).toBeGreaterThanOrEqual(3);
  expect(drawn.eventMarks).toBeGreaterThan(drawn.decisionMarks);
  const requested = trail.locator('tr.kind-event', { hasText: 'DeliveryRequested' }).first();
  const sequence = (await requested.locator('td').nth(3).textContent())?.trim() ?? '';
  const correlationId = (await requested.locator('td').nth(4).textContent())?.trim() ?? '';
  expect(sequence).toMatch(/^\d+$/);
  expect(correlationId).not.toBe('—');
  await swimlane.locator('[data-lane="ingestion"] [data-mark="event"]').first().focus();
  const detail = page.getByTestId('swimlane-detail');
  await expectContains(detail, 'DeliveryRequested from ingestion');
  await expectContains(detail, `sequence ${sequence}`);
  await expectContains(detail, `correlation id ${correlationId}`);
}

/** Waits until the element's whole text matches (the page polls; nothing reloads). */
async function expectText(locator: Locator, expected: string | RegExp, timeoutMs = 10_000): Promise<void> {
  const matches = (text: string) =>
    typeof expected === 'string' ? text.trim() === expected : expected.test(text.trim());
  await waitForText(locator, matches, `${String(expected)}`, timeoutMs);
}

async function expectContains(locator: Locator, expected: string, timeoutMs = 10_000): Promise<void> {
  await waitForText(locator, (text) => text.includes(expected), `text containing ${expected}`, timeoutMs);
}

async function waitForText(
  locator: Locator,
  matches: (text: string) => boolean,
  what: string,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    last = (await locator.allInnerTexts().catch(() => [])).join('\n');
    if (matches(last)) return;
    await new Promise((resolveWait) => setTimeout(resolveWait, 250));
  }
  throw new Error(`Waited ${timeoutMs} ms for ${what}; the page showed: ${last || '(nothing)'}`);
}
