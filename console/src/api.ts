/**
 * What the page asks for, as one interface (ConsoleApi) with two implementations: the local
 * backend's routes (localConsoleApi, same origin; the backend signs) and the deployed console's
 * signed calls to the operator API (deployed-api.ts). Every failure becomes an Error whose message
 * says what happened in words, for the page to show: never a blank page, never raw JSON.
 */
import { createContext, useContext } from 'react';
import type {
  OperatorAction,
  OperatorActionRequest,
  OperatorActionResultBody,
  OperatorOrderDetailBody,
  OperatorOrderListBody,
  OperatorRefusalBody,
} from '../../lambdas/scheduler-agent-supervisor/contracts/api';
import type { OperatorWorkflowBody } from '../../lambdas/scheduler-agent-supervisor/contracts/operator-workflow';
import {
  type AlarmsBody,
  type AlarmView,
  type ConsoleErrorBody,
  ConsoleRoute,
  type DeliveryDetailBody,
  type DeliveryListBody,
  type StateCount,
  type StateCountsBody,
} from '../contract/console-api';
import type { DashboardBody } from '../contract/dashboard';
import type { ListQuery } from '../contract/state-counts';

export interface Answer<T> {
  readonly status: number;
  readonly body: T;
}

/** The message of an API's error body (`message`, with the fields it names), or the text as is. */
export function messageOf(body: unknown, text: string): string {
  if (typeof body === 'object' && body !== null && 'message' in body) {
    const { message, errors } = body as ConsoleErrorBody & { errors?: { path?: string; message?: string }[] };
    const details = (errors ?? []).map((error) => `${error.path ?? ''} ${error.message ?? ''}`.trim());
    return [message, ...details].join('; ');
  }
  return text.slice(0, 300) || 'no body';
}

/**
 * Reads a response's body as JSON (undefined when empty or not JSON) and keeps its text, for
 * messageOf: what every caller of an API does with an answer, local or signed.
 */
export async function readJsonBody(response: Response): Promise<{ body: unknown; text: string }> {
  const text = await response.text();
  try {
    return { body: text ? JSON.parse(text) : undefined, text };
  } catch {
    return { body: undefined, text };
  }
}

/**
 * GETs or POSTs JSON. Answers with `accept`ed statuses (200 by default) are returned; any other
 * status throws an Error naming the status and the API's message.
 */
export async function callJson<T>(
  url: string,
  init: { method?: 'GET' | 'POST'; body?: unknown; accept?: readonly number[] } = {},
): Promise<Answer<T>> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: init.method ?? 'GET',
      headers: {
        accept: 'application/json',
        ...(init.body !== undefined && { 'content-type': 'application/json' }),
      },
      ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
    });
  } catch (error) {
    throw new Error(
      `The console backend cannot be reached (${(error as Error).message}). Is npm start running?`,
    );
  }
  const { body, text } = await readJsonBody(response);
  if (!(init.accept ?? [200]).includes(response.status)) {
    throw new Error(`${response.status} ${response.statusText}: ${messageOf(body, text)}`);
  }
  return { status: response.status, body: body as T };
}

/** Everything the views call. */
export interface ConsoleApi {
  /** Whether there is a Deliveries tab: locally always, deployed when the config names the delivery API. */
  readonly servesDeliveries: boolean;
  /** Ends the operator's session (the deployed console; locally the backend holds the identity). */
  readonly signOut?: () => void;
  counts(): Promise<readonly StateCount[]>;
  orders(query: ListQuery): Promise<OperatorOrderListBody>;
  order(orderId: string): Promise<OperatorOrderDetailBody>;
  /** The latest attempt's definition and the states it entered (the workflow graph). */
  workflow(orderId: string): Promise<OperatorWorkflowBody>;
  /** Retry or cancel: 200 with the result, or 409 with the refusal (any other status throws). */
  act(
    orderId: string,
    action: OperatorAction,
    request: OperatorActionRequest,
  ): Promise<Answer<OperatorActionResultBody | OperatorRefusalBody>>;
  alarms(): Promise<readonly AlarmView[]>;
  /** Orders entering each state and deliveries each status, per minute over the last hour. */
  dashboard(): Promise<DashboardBody>;
  deliveries(status?: string): Promise<DeliveryListBody>;
  delivery(deliveryId: string): Promise<DeliveryDetailBody>;
}

/** The local backend (bin/console-server.ts), same origin. */
export const localConsoleApi: ConsoleApi = {
  servesDeliveries: true,
  counts: async () => (await callJson<StateCountsBody>(ConsoleRoute.counts)).body.counts,
  orders: async (query) => {
    const search = new URLSearchParams({
      state: query.state,
      ...(query.limit !== undefined && { limit: String(query.limit) }),
      ...(query.cursor !== undefined && { cursor: query.cursor }),
    });
    return (await callJson<OperatorOrderListBody>(`${ConsoleRoute.orders}?${search}`)).body;
  },
  order: async (orderId) => (await callJson<OperatorOrderDetailBody>(ConsoleRoute.order(orderId))).body,
  workflow: async (orderId) => (await callJson<OperatorWorkflowBody>(ConsoleRoute.workflow(orderId))).body,
  act: (orderId, action, request) =>
    callJson<OperatorActionResultBody | OperatorRefusalBody>(ConsoleRoute.action(orderId, action), {
      method: 'POST',
      body: request,
      accept: [200, 409],
    }),
  alarms: async () => (await callJson<AlarmsBody>(ConsoleRoute.alarms)).body.alarms,
  dashboard: async () => (await callJson<DashboardBody>(ConsoleRoute.dashboard)).body,
  deliveries: async (status) => {
    const query = status ? `?${new URLSearchParams({ status })}` : '';
    return (await callJson<DeliveryListBody>(`${ConsoleRoute.deliveries}${query}`)).body;
  },
  delivery: async (deliveryId) =>
    (await callJson<DeliveryDetailBody>(ConsoleRoute.delivery(deliveryId))).body,
};

const ConsoleApiContext = createContext<ConsoleApi>(localConsoleApi);
export const ConsoleApiProvider = ConsoleApiContext.Provider;

/** The API the page was started with (main.tsx chooses it from config.json). */
export function useConsoleApi(): ConsoleApi {
  return useContext(ConsoleApiContext);
}
