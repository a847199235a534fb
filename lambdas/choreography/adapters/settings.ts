import type * as z from 'zod';
import { requireEnv } from '../../shared/env';
import { jsonParser } from '../../shared/parse';
import { ChoreographyEnvKey } from '../contracts';

/**
 * SERVICE_SETTINGS parsed with the service's schema (contracts/settings.ts), once at cold start: a
 * function with broken settings must fail at load, naming the variable, not mid-delivery.
 */
export function readServiceSettings<S extends z.ZodType>(
  schema: S,
  env: NodeJS.ProcessEnv = process.env,
): z.output<S> {
  const parsed = jsonParser(schema)(requireEnv(ChoreographyEnvKey.Settings, env));
  if (!parsed.ok) {
    throw new Error(`${ChoreographyEnvKey.Settings} is not valid: ${parsed.summary}`);
  }
  return parsed.value;
}
