/**
 * Who owns an order: the client applications of the registry (contracts' ClientRegistry), looked up
 * by a record's ClientId (by the API key id API Gateway authenticated: shared/holder-of-api-key.ts).
 */
import type { ClientRegistry, RegisteredClient } from '../contracts';

export function clientById(
  registry: ClientRegistry,
  clientId: string | undefined,
): RegisteredClient | undefined {
  if (clientId === undefined) return undefined;
  return registry.find((client) => client.clientId === clientId);
}

/**
 * Whether `clientId` may see the order. Only its submitter may: another client is answered as if
 * the order did not exist. A record without ClientId (submitted before clients existed) belongs to
 * no client, so no client sees it through the client API (operators still do).
 */
export function mayRead(record: { readonly clientId?: string }, clientId: string): boolean {
  return record.clientId === clientId;
}
