/**
 * REQUESTER_REGISTRY, validated at load: a handler that cannot tell requesters apart must not start
 * (throws naming the variable and each bad entry).
 */
import { requireEnv } from '../../shared/env';
import { ChoreographyEnvKey, type RequesterRegistry, RequesterRegistrySchema } from '../contracts';

export function readRequesterRegistry(env: NodeJS.ProcessEnv = process.env): RequesterRegistry {
  const raw = requireEnv(ChoreographyEnvKey.RequesterRegistry, env);
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    throw new Error(`${ChoreographyEnvKey.RequesterRegistry} is not JSON`);
  }
  const parsed = RequesterRegistrySchema.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new Error(`${ChoreographyEnvKey.RequesterRegistry} is invalid: ${problems.join('; ')}`);
  }
  return parsed.data;
}
