/**
 * Who is asking an API handler, or the 403 that refuses an API key of no registered entry (the
 * orders' clients, the deliveries' requesters): one place for every API handler of both wings, so
 * each such refusal is logged the same way (a warning with the key id and the route) and counted
 * under its wing's own metric (orders UnknownClientRequests, deliveries UnknownRequesterRequests),
 * never mixed with the validation 400s.
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { holderOfApiKey } from './holder-of-api-key';
import { errorResponse } from './http';

/** How a wing names and counts a caller it does not know (its contracts hold one). */
export interface UnregisteredCaller<Name extends string> {
  /** What an entry of the registry is called in this wing ('client', 'requester'). */
  readonly entry: string;
  /** The wing's metric of such refusals. */
  readonly metric: Name;
}

/** What the handler answers and reports with. */
export interface CallerScope<Name extends string> {
  readonly log: Pick<Logger, 'warn'>;
  /** Headers every answer of the handler carries (the correlation id, the browser origin). */
  readonly echoHeaders: Record<string, string>;
  readonly count: (name: Name) => void;
}

export function registeredCaller<T extends { readonly apiKeyId: string }, Name extends string>(
  registry: readonly T[],
  event: Pick<APIGatewayProxyEvent, 'requestContext' | 'httpMethod' | 'resource'>,
  scope: CallerScope<Name>,
  unregistered: UnregisteredCaller<Name>,
): { readonly caller: T } | { readonly refused: APIGatewayProxyResult } {
  const apiKeyId = event.requestContext?.identity?.apiKeyId;
  const caller = holderOfApiKey(registry, apiKeyId);
  if (caller !== undefined) return { caller };
  scope.count(unregistered.metric);
  scope.log.warn(`Request refused: the API key belongs to no registered ${unregistered.entry}`, {
    apiKeyId: apiKeyId ?? null,
    route: `${event.httpMethod ?? ''} ${event.resource ?? ''}`.trim(),
  });
  const message = `This API key is not registered to a ${unregistered.entry}`;
  return { refused: errorResponse(403, message, undefined, scope.echoHeaders) };
}
