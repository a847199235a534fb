/**
 * Values of the API keys a template declares without one (AWS generates them at deployment): random
 * (crypto), generated once per data directory and kept there, so a restart on the same --data keeps
 * every key; without a data directory each start gets fresh keys.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** 30 random bytes: 40 characters, as long as the keys API Gateway generates. */
function generateKey(): string {
  return randomBytes(30).toString('base64url');
}

export class GeneratedApiKeys {
  private readonly keys: Record<string, string>;
  private readonly file: string | undefined;

  /** `dataDir` keeps the keys in `<dataDir>/api-gateway/api-keys.json`; without it they live in memory. */
  constructor(dataDir: string | undefined) {
    this.file = dataDir ? join(dataDir, 'api-gateway', 'api-keys.json') : undefined;
    this.keys = this.file ? readKeys(this.file) : {};
  }

  /** The key of one ApiKey resource (by `<stack>/<logical id>`), generated the first time. */
  valueOf(resource: string): string {
    const existing = this.keys[resource];
    if (existing) return existing;
    const key = generateKey();
    this.keys[resource] = key;
    if (this.file) {
      mkdirSync(dirname(this.file), { recursive: true });
      // Readable by the developer only: the key guards the local API like a real one.
      writeFileSync(this.file, `${JSON.stringify(this.keys, null, 2)}\n`, { mode: 0o600 });
    }
    return key;
  }
}

function readKeys(file: string): Record<string, string> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw error;
  }
  const parsed: unknown = JSON.parse(text);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new Error(`${file} is not a JSON object of API keys; delete it to generate new keys`);
  }
  return Object.fromEntries(
    Object.entries(parsed).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
}
