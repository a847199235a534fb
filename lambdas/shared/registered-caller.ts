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

/** How a wing refuses a caller it does not know. */
export interface CallerRefusal {
  /** What an entry of the registry is called in this wing ('client', 'requester'). */
  readonly entry: string;
  readonly log: Pick<Logger, 'warn'>;
  /** Counts one refusal under the wing's metric for unregistered callers. */
  readonly count: () => void;
  /** Headers every answer of the handler carries (the correlation id, the browser origin). */
  readonly headers: Record<string, string>;
}

export function registeredCaller<T extends { readonly apiKeyId: string }>(
  registry: readonly T[],
  event: Pick<APIGatewayProxyEvent, 'requestContext' | 'httpMethod' | 'resource'>,
  refusal: CallerRefusal,
): { readonly caller: T } | { readonly refused: APIGatewayProxyResult } {
  const apiKeyId = event.requestContext?.identity?.apiKeyId;
  const caller = holderOfApiKey(registry, apiKeyId);
  if (caller !== undefined) return { caller };
  refusal.count();
  refusal.log.warn(`Request refused: the API key belongs to no registered ${refusal.entry}`, {
    apiKeyId: apiKeyId ?? null,
    route: `${event.httpMethod ?? ''} ${event.resource ?? ''}`.trim(),
  });
  return {
    refused: errorResponse(
      403,
      `This API key is not registered to a ${refusal.entry}`,
      undefined,
      refusal.headers,
    ),
  };
}
