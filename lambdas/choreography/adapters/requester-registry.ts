/**
 * REQUESTER_REGISTRY, validated at load: a handler that cannot tell requesters apart must not start
 * (throws naming the variable and each bad entry), parsed as the service settings are (shared
 * jsonParser).
 */
import { requireEnv } from '../../shared/env';
import { jsonParser } from '../../shared/parse';
import { ChoreographyEnvKey, type RequesterRegistry, RequesterRegistrySchema } from '../contracts';

const parseRegistry = jsonParser(RequesterRegistrySchema);

export function readRequesterRegistry(env: NodeJS.ProcessEnv = process.env): RequesterRegistry {
  const parsed = parseRegistry(requireEnv(ChoreographyEnvKey.RequesterRegistry, env));
  if (!parsed.ok) {
    throw new Error(`${ChoreographyEnvKey.RequesterRegistry} is not valid: ${parsed.summary}`);
  }
  return parsed.value;
}
