/**
 * The console backend's routes and bodies: the one contract between the page (console/src) and the
 * same-origin backend that signs its calls (bin/console-server.ts). Orders and deliveries keep the
 * apps' own contracts (imported here as types); only what the console adds is defined here.
 */
import type { MetricAlarm } from '@aws-sdk/client-cloudwatch';
import type { ProcessState } from '../../lambdas/scheduler-agent-supervisor/contracts';

/** Where the page is served; the backend's routes are under `${CONSOLE_BASE}/api`. */
export const CONSOLE_BASE = '/console';

export const ConsoleRoute = {
  /** GET: how many orders each state holds (counted up to STATE_COUNT_LIMIT). */
  counts: `${CONSOLE_BASE}/api/counts`,
  /** GET ?state&limit&cursor: the operator API's list, as is. */
  orders: `${CONSOLE_BASE}/api/orders`,
  /** GET: the operator API's inspect, as is. */
  order: (orderId: string) => `${CONSOLE_BASE}/api/orders/${encodeURIComponent(orderId)}`,
  /** GET: the operator API's workflow of the order's latest attempt (OperatorWorkflowBody), as is. */
  workflow: (orderId: string) => `${CONSOLE_BASE}/api/orders/${encodeURIComponent(orderId)}/workflow`,
  /** POST OperatorActionRequest: the operator API's retry or cancel; its 409 body passed on as is. */
  action: (orderId: string, action: 'retry' | 'cancel') =>
    `${CONSOLE_BASE}/api/orders/${encodeURIComponent(orderId)}/${action}`,
  /** GET: orders entering each state and deliveries each status, per minute over the last hour (DashboardBody, dashboard.ts). */
  dashboard: `${CONSOLE_BASE}/api/dashboard`,
  /** GET: every metric alarm and its state. */
  alarms: `${CONSOLE_BASE}/api/alarms`,
  /** GET ?status: the delivery API's operator list, as is. */
  deliveries: `${CONSOLE_BASE}/api/deliveries`,
  /** GET: one delivery's status and its trail across services, as the delivery API's operator route answers it. */
  delivery: (deliveryId: string) => `${CONSOLE_BASE}/api/deliveries/${encodeURIComponent(deliveryId)}`,
} as const;

/** Counting pages through the operator list costs one call per 100 orders: past this, "at least". */
export const STATE_COUNT_LIMIT = 300;

export interface StateCount {
  readonly state: ProcessState;
  readonly count: number;
  /** True when the count stopped at STATE_COUNT_LIMIT: there are at least `count`. */
  readonly atLeast: boolean;
}

export interface StateCountsBody {
  readonly counts: readonly StateCount[];
}

export interface AlarmView {
  readonly name: string;
  /**
   * The app the alarm watches (`Orders`, `Deliveries`), when the caller knows it: the deployed page
   * reads each stack's alarms by its prefix and labels them; the local backend lists every alarm
   * unlabelled (their names start with their stack's).
   */
  readonly wing?: string;
  /** OK, ALARM or INSUFFICIENT_DATA. */
  readonly state: string;
  readonly since?: string;
  readonly reason?: string;
}

/** An alarm as the page shows it, from CloudWatch's DescribeAlarms (the backend's and the deployed page's). */
export function alarmViewOf(alarm: MetricAlarm): AlarmView {
  return {
    name: alarm.AlarmName ?? '?',
    state: alarm.StateValue ?? '?',
    ...(alarm.StateUpdatedTimestamp && { since: alarm.StateUpdatedTimestamp.toISOString() }),
    ...(alarm.StateReason && { reason: alarm.StateReason }),
  };
}

export interface AlarmsBody {
  readonly alarms: readonly AlarmView[];
}

// The Deliveries tab's bodies are the delivery API's operator routes' (their contract is their home).
export type {
  DeliveryDetailBody,
  DeliveryListBody,
  DeliveryRow,
  DeliveryTrailEntry,
} from '../../lambdas/choreography/contracts/operator';

/** Every error the backend answers itself (its own 4xx/5xx; the APIs' own bodies are passed on). */
export interface ConsoleErrorBody {
  readonly message: string;
}
