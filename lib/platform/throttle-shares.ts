/**
 * Shares of a limit between named clients, in percent: what keeps one API key holder (or one
 * client's submissions) from taking the whole of a limit the others need. Written once, for the
 * usage plans of a keyed API (keyed-rest-api.ts) and for the orders' admission shares.
 */

/**
 * Throws naming `owner` and the client at fault: a name without a share, a share that is not a
 * number above 0 and at most 100, a share of no named client, or shares that add up to more than
 * 100 % (naming every client and its share).
 */
export function validateShares(
  owner: string,
  names: readonly string[],
  shares: Readonly<Record<string, number>>,
): void {
  for (const name of Object.keys(shares)) {
    if (!names.includes(name))
      throw new Error(`${owner}: a share is given for '${name}', which is no client`);
  }
  for (const name of names) {
    const share = shares[name];
    if (typeof share !== 'number' || !Number.isFinite(share) || share <= 0 || share > 100) {
      throw new Error(`${owner}: client '${name}' needs a share above 0 and at most 100 %, got ${share}`);
    }
  }
  const total = names.reduce((sum, name) => sum + (shares[name] as number), 0);
  // A hundredth of a percent of slack: equal thirds (33.333…) must add up to 100.
  if (total > 100.01) {
    const listed = names.map((name) => `${name} ${shares[name]} %`).join(', ');
    throw new Error(`${owner}: the clients' shares add up to ${total} %, more than 100 % (${listed})`);
  }
}

/**
 * A share (percent) of a throttle: the rate that share, to a hundredth and at least that (API
 * Gateway takes a fractional rate; 0 would block the key), the
 * burst that share rounded down, at least 1 (API Gateway's burst is a whole number of requests).
 */
export function throttleShareOf(
  throttle: { readonly rateLimit: number; readonly burstLimit: number },
  percent: number,
): { readonly rateLimit: number; readonly burstLimit: number } {
  return {
    rateLimit: Math.max(0.01, Math.round(throttle.rateLimit * percent) / 100),
    burstLimit: Math.max(1, Math.floor((throttle.burstLimit * percent) / 100)),
  };
}
