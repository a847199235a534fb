/**
 * Who is asking: the entry of a registry (the orders' clients, the deliveries' requesters) whose
 * API key API Gateway authenticated (requestContext.identity.apiKeyId). One lookup for both wings,
 * so a request without a key id, or with a key of no entry, is refused the same way in each.
 */
export function holderOfApiKey<T extends { readonly apiKeyId: string }>(
  registry: readonly T[],
  apiKeyId: string | null | undefined,
): T | undefined {
  if (!apiKeyId) return undefined;
  return registry.find((entry) => entry.apiKeyId === apiKeyId);
}
