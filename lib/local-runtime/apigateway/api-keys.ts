/**
 * Values of the API keys a template declares without one (AWS generates them at deployment): random
 * (crypto), generated once per data directory and kept there, so a restart on the same --data keeps
 * every key; without a data directory each start gets fresh keys (iam/persisted-secrets.ts).
 */
import { join } from 'node:path';
import { PersistedSecrets } from '../iam/persisted-secrets';

export class GeneratedApiKeys {
  private readonly keys: PersistedSecrets;

  /** `dataDir` keeps the keys in `<dataDir>/api-gateway/api-keys.json`; without it they live in memory. */
  constructor(dataDir: string | undefined) {
    this.keys = new PersistedSecrets(
      dataDir ? join(dataDir, 'api-gateway', 'api-keys.json') : undefined,
      'API keys',
    );
  }

  /** The key of one ApiKey resource (by `<stack>/<logical id>`), generated the first time. */
  valueOf(resource: string): string {
    return this.keys.of(resource);
  }
}
