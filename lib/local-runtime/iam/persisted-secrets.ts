/**
 * Random secrets a local runtime hands out by name (API key values, local IAM users' secret access
 * keys), generated once per data directory and kept there in a JSON file readable by the developer
 * only (../private-files.ts), so a restart on the same --data keeps every one; without a data directory they live in
 * memory and each start gets fresh ones.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { narrowPrivateFile, writePrivateFile } from '../private-files';

/** 30 random bytes: 40 characters, as long as an AWS secret access key or a generated API key. */
function generateSecret(): string {
  return randomBytes(30).toString('base64url');
}

export class PersistedSecrets {
  private readonly secrets: Record<string, string>;

  /**
   * @param file where the secrets are kept (undefined: in memory only)
   * @param what what the file holds, named in the error when it is not a JSON object of strings
   */
  constructor(
    private readonly file: string | undefined,
    what: string,
  ) {
    this.secrets = file ? readSecrets(file, what) : {};
    if (file) narrowPrivateFile(file, { narrowFolder: true });
  }

  /** The secret of `name`, if one was made. */
  known(name: string): string | undefined {
    return this.secrets[name];
  }

  /** The secret of `name`, made (and kept) the first time it is asked for. */
  of(name: string): string {
    const existing = this.secrets[name];
    if (existing !== undefined) return existing;
    const secret = generateSecret();
    this.secrets[name] = secret;
    // Readable by the developer only (0600, its folder 0700, narrowed if an earlier start left them
    // wider): the secrets guard the local APIs like real ones. The folder is the runtime's own
    // (`<dataDir>/iam`, `<dataDir>/api-gateway`).
    if (this.file)
      writePrivateFile(this.file, `${JSON.stringify(this.secrets, null, 2)}\n`, { narrowFolder: true });
    return secret;
  }
}

function readSecrets(file: string, what: string): Record<string, string> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw error;
  }
  const parsed: unknown = JSON.parse(text);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new Error(`${file} is not a JSON object of ${what}; delete it to generate new ones`);
  }
  return Object.fromEntries(
    Object.entries(parsed).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
}
