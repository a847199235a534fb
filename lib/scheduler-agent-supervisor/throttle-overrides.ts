/**
 * CDK context overriding the profile's throttling of the orders API, as `admissionLimit` overrides
 * its admission limit: a test's limits small enough to reach (`apiThrottle=<rate>/<burst>`) and its
 * clients' unequal shares (`throttleShares=<client>:<percent>,...`), read by deployment.ts. Bad
 * text is refused naming the key and what is wrong; the values are then validated where the
 * profile's are (clientShares, createKeyedRestApi).
 */
import type { ClientConfig } from './config';
import { SasContextKey } from './sas-context-key';

/** `<rate>/<burst>` (e.g. `0.01/40`) over `apiThrottle`; unset: the profile's. */
export function apiThrottleWithOverride(
  apiThrottle: { readonly rateLimit: number; readonly burstLimit: number },
  text: string | undefined,
): { readonly rateLimit: number; readonly burstLimit: number } {
  if (text === undefined) return apiThrottle;
  const match = /^([0-9]+(?:\.[0-9]+)?)\/([1-9][0-9]*)$/.exec(text);
  if (!match) {
    throw new Error(
      `CDK context "${SasContextKey.ApiThrottle}" must be <rate>/<burst> (requests a second, a whole burst), got ${JSON.stringify(text)}`,
    );
  }
  return { rateLimit: Number(match[1]), burstLimit: Number(match[2]) };
}

/** `<client>:<percent>,...` as the named clients' throttleShare; unset: the profile's clients. */
export function clientsWithThrottleShares(
  clients: readonly ClientConfig[],
  text: string | undefined,
): readonly ClientConfig[] {
  if (text === undefined) return clients;
  const key = `CDK context "${SasContextKey.ThrottleShares}"`;
  const shares = new Map<string, number>();
  for (const entry of text.split(',')) {
    const match = /^([a-z0-9-]+):([0-9]+(?:\.[0-9]+)?)$/.exec(entry.trim());
    if (!match) throw new Error(`${key} must be <client>:<percent>,..., got ${JSON.stringify(entry)}`);
    const [, name = '', percent] = match;
    if (!clients.some((client) => client.name === name)) {
      throw new Error(
        `${key} names '${name}', which is no client (${clients.map((c) => c.name).join(', ')})`,
      );
    }
    if (shares.has(name)) throw new Error(`${key} names '${name}' twice`);
    shares.set(name, Number(percent));
  }
  return clients.map((client) => {
    const share = shares.get(client.name);
    return share === undefined ? client : { ...client, throttleShare: share };
  });
}
