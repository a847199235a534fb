/**
 * Calls to the console backend (same origin). Every failure becomes an Error whose message says
 * what happened in words, for the page to show: never a blank page, never raw JSON.
 */
import type { ConsoleErrorBody } from './console-api';

export interface Answer<T> {
  readonly status: number;
  readonly body: T;
}

/** The message of an API's error body (`message`, with the fields it names), or the text as is. */
function messageOf(body: unknown, text: string): string {
  if (typeof body === 'object' && body !== null && 'message' in body) {
    const { message, errors } = body as ConsoleErrorBody & { errors?: { path?: string; message?: string }[] };
    const details = (errors ?? []).map((error) => `${error.path ?? ''} ${error.message ?? ''}`.trim());
    return [message, ...details].join('; ');
  }
  return text.slice(0, 300) || 'no body';
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
  const text = await response.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  if (!(init.accept ?? [200]).includes(response.status)) {
    throw new Error(`${response.status} ${response.statusText}: ${messageOf(body, text)}`);
  }
  return { status: response.status, body: body as T };
}
