import { validateShares } from '../platform/throttle-shares';

/** The shares a client may state (ClientConfig): of the stage throttle, of the admission limit. */
export type ShareKind = 'throttleShare' | 'admissionShare';

/** What of a client (ClientConfig, config.ts) its shares are read from. */
type SharingClient = { readonly name: string } & { readonly [kind in ShareKind]?: number };

/**
 * Each client's share (percent) of one limit, by client name: the share it states, and for the
 * clients that state none an equal split of what the stated ones leave (with none stated, an equal
 * share each). Validated (validateShares): throws naming `owner`, the kind and the client at
 * fault, e.g. a share of 0 or shares adding up to more than 100 %, or stated shares that leave
 * nothing to a client that states none.
 */
export function clientShares(
  owner: string,
  clients: readonly SharingClient[],
  kind: ShareKind,
): Readonly<Record<string, number>> {
  const names = clients.map((client) => client.name);
  const stated = clients.filter((client) => client[kind] !== undefined);
  const unstated = clients.filter((client) => client[kind] === undefined);
  const statedTotal = stated.reduce((sum, client) => sum + (client[kind] as number), 0);
  const rest = unstated.length === 0 ? 0 : (100 - statedTotal) / unstated.length;
  if (unstated.length > 0 && !(rest > 0)) {
    throw new Error(
      `${owner}: the stated ${kind}s add up to ${statedTotal} %, leaving nothing to client '${unstated[0]?.name}', which states none`,
    );
  }
  const shares = Object.fromEntries(clients.map((client) => [client.name, client[kind] ?? rest]));
  validateShares(`${owner} (${kind})`, names, shares);
  return shares;
}

/**
 * Each client's admission cap: its share (percent) of `limit`, rounded down. Throws naming `owner`
 * and the client whose share comes to less than one slot (it could never submit).
 */
export function clientAdmissionCaps(
  owner: string,
  limit: number,
  shares: Readonly<Record<string, number>>,
): Readonly<Record<string, number>> {
  return Object.fromEntries(
    Object.entries(shares).map(([name, share]) => {
      const cap = Math.floor((limit * share) / 100 + 1e-9);
      if (cap < 1) {
        throw new Error(
          `${owner}: client '${name}' has an admissionShare of ${share} % of the admission limit ${limit}: less than one slot`,
        );
      }
      return [name, cap];
    }),
  );
}
