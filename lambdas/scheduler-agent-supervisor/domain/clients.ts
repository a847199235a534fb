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
