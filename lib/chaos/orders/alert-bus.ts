/**
 * The alert-bus-outage fault: stands in the awsApi hook's EventBridge proxy and fails the
 * functions' PutEvents of outbox alerts (an entry of the order alerts' source whose detail carries
 * an alertId) while a planned window is open. It also watches what gets through, so the summary can say how
 * many publishes failed and how long the hit alerts took to be delivered anyway.
 */
import { ALERT_EVENT_SOURCE } from '../../../lambdas/scheduler-agent-supervisor/contracts';
import type { InterceptedReply, InterceptedRequest } from '../../local-runtime';
import { AlertBusFailure, type AlertBusOutage } from './plan';

const JSON_REPLY = { 'content-type': 'application/x-amz-json-1.1' };

/** What the outage windows did, for the summary. */
export interface AlertBusOutageStats {
  /** Windows that opened, of those planned. */
  readonly windowsOpened: number;
  readonly windowsPlanned: number;
  /** PutEvents calls failed, by how. */
  readonly failedCalls: Readonly<Record<AlertBusFailure, number>>;
  /**
   * Distinct alerts (AlertIds) whose first publishes failed (a failed redelivery of an alert the bus
   * had already accepted counts among the failed calls, not here).
   */
  readonly alertsHit: number;
  /** Of those, how many got through later (the bus accepted a PutEvents of it). */
  readonly alertsHitDelivered: number;
  /** Per hit alert delivered: ms from its first failed publish to the first accepted one. */
  readonly deliveryDelaysMillis: readonly number[];
  /** Distinct alerts the bus accepted, and the PutEvents entries it accepted for them (copies included). */
  readonly alertsAccepted: number;
  readonly alertEntriesAccepted: number;
}

interface AlertEntry {
  /** Its position among the request's entries (PutEvents answers entry by entry, in order). */
  readonly index: number;
  readonly alertId: string;
  readonly orderId?: string;
}

export class AlertBusOutages {
  private readonly seen = new Set<string>();
  private readonly firstFailedAt = new Map<string, number>();
  private readonly firstAcceptedAt = new Map<string, number>();
  private entriesAccepted = 0;
  private readonly failedCalls: Record<AlertBusFailure, number> = {
    [AlertBusFailure.Error]: 0,
    [AlertBusFailure.FailedEntry]: 0,
  };
  private next = 0;
  private open?: { readonly until: number; readonly failure: AlertBusFailure };

  constructor(
    private readonly settings: {
      readonly windows: readonly AlertBusOutage[];
      /** Called once per PutEvents failed, with the orders of its alerts. */
      readonly fired: (orderIds: readonly string[]) => void;
      readonly now: () => number;
    },
  ) {}

  async intercept(
    request: InterceptedRequest,
    forward: () => Promise<InterceptedReply>,
  ): Promise<InterceptedReply | 'drop'> {
    if (!request.headers['x-amz-target']?.endsWith('.PutEvents')) return forward();
    const entries = parseEntries(request.body);
    const alerts = entries.flatMap((entry, index) => this.alertOf(entry, index));
    if (alerts.length === 0) return forward();
    const now = this.settings.now();
    const failure = this.failureAt(now, alerts);
    for (const alert of alerts) this.seen.add(alert.alertId);
    if (failure === undefined) {
      const reply = await forward();
      this.observeAccepted(reply, alerts);
      return reply;
    }
    this.failedCalls[failure] += 1;
    for (const alert of alerts) {
      if (!this.firstFailedAt.has(alert.alertId) && !this.firstAcceptedAt.has(alert.alertId)) {
        this.firstFailedAt.set(alert.alertId, now);
      }
    }
    this.settings.fired([...new Set(alerts.flatMap((alert) => (alert.orderId ? [alert.orderId] : [])))]);
    if (failure === AlertBusFailure.Error) {
      return {
        status: 500,
        headers: JSON_REPLY,
        body: JSON.stringify({ __type: 'InternalException', message: 'chaos: alert bus outage' }),
      };
    }
    return {
      status: 200,
      headers: JSON_REPLY,
      body: JSON.stringify({
        FailedEntryCount: entries.length,
        Entries: entries.map(() => ({
          ErrorCode: 'InternalFailure',
          ErrorMessage: 'chaos: alert bus outage',
        })),
      }),
    };
  }

  stats(): AlertBusOutageStats {
    const delays = [...this.firstFailedAt].flatMap(([alertId, failedAt]) => {
      const acceptedAt = this.firstAcceptedAt.get(alertId);
      return acceptedAt === undefined ? [] : [acceptedAt - failedAt];
    });
    return {
      windowsOpened: this.next,
      windowsPlanned: this.settings.windows.length,
      failedCalls: { ...this.failedCalls },
      alertsHit: this.firstFailedAt.size,
      alertsHitDelivered: delays.length,
      deliveryDelaysMillis: delays,
      alertsAccepted: this.firstAcceptedAt.size,
      alertEntriesAccepted: this.entriesAccepted,
    };
  }

  /**
   * The failure for a PutEvents at `now`: the open window's; else the next window opens on an
   * alert not seen before once enough distinct alerts were seen.
   */
  private failureAt(now: number, alerts: readonly AlertEntry[]): AlertBusFailure | undefined {
    if (this.open && now < this.open.until) return this.open.failure;
    this.open = undefined;
    const window = this.settings.windows[this.next];
    const fresh = alerts.some((alert) => !this.seen.has(alert.alertId));
    if (!window || !fresh || this.seen.size < window.afterAlerts) return undefined;
    this.next += 1;
    this.open = { until: now + window.durationMillis, failure: window.failure };
    return window.failure;
  }

  private observeAccepted(reply: InterceptedReply, alerts: readonly AlertEntry[]): void {
    if (reply.status !== 200) return;
    const body = parseJson(reply.body);
    const results = Array.isArray(body?.Entries) ? (body.Entries as Array<Record<string, unknown>>) : [];
    // An entry answered with an ErrorCode was dropped by the bus.
    for (const alert of alerts) {
      if (typeof results[alert.index]?.ErrorCode === 'string') continue;
      this.entriesAccepted += 1;
      if (!this.firstAcceptedAt.has(alert.alertId))
        this.firstAcceptedAt.set(alert.alertId, this.settings.now());
    }
  }

  /**
   * An outbox alert, or nothing. Told by its source and its alertId rather than by the bus name,
   * which the template leaves to the deployment (a Ref the campaign's facts do not resolve); only
   * the order alerts have that source, only outbox alerts an alertId.
   */
  private alertOf(entry: Record<string, unknown>, index: number): AlertEntry[] {
    if (entry.Source !== ALERT_EVENT_SOURCE) return [];
    const detail = parseJson(typeof entry.Detail === 'string' ? entry.Detail : '');
    if (typeof detail?.alertId !== 'string') return [];
    return [
      {
        index,
        alertId: detail.alertId,
        ...(typeof detail.orderId === 'string' ? { orderId: detail.orderId } : {}),
      },
    ];
  }
}

function parseEntries(body: string): Array<Record<string, unknown>> {
  const entries = parseJson(body)?.Entries;
  return Array.isArray(entries)
    ? entries.filter((entry): entry is Record<string, unknown> => typeof entry === 'object' && entry !== null)
    : [];
}

function parseJson(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
