/**
 * Files that hold secrets (the target description's API keys and identity secrets, the generated
 * API keys and identity secrets of a data directory): readable by the developer only, mode 0600,
 * in a folder only the developer may list and enter, mode 0700. Modes given at creation are not
 * enough: a file or folder an earlier start (or another tool) left with a wider mode keeps it, so
 * both are narrowed on every write.
 */
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

export const PRIVATE_FILE_MODE = 0o600;
export const PRIVATE_FOLDER_MODE = 0o700;

/**
 * Writes `text` to `file` with mode 0600, creating missing folders with mode 0700. `narrowFolder`:
 * the file's own folder is the runtime's (not one the developer named for other things too), so it
 * is narrowed to 0700 even when it already existed.
 */
export function writePrivateFile(
  file: string,
  text: string,
  options: { readonly narrowFolder: boolean },
): void {
  const folder = dirname(file);
  mkdirSync(folder, { recursive: true, mode: PRIVATE_FOLDER_MODE });
  if (options.narrowFolder) chmodSync(folder, PRIVATE_FOLDER_MODE);
  writeFileSync(file, text, { mode: PRIVATE_FILE_MODE });
  chmodSync(file, PRIVATE_FILE_MODE);
}

/**
 * Narrows a secrets file an earlier start left (and its folder, when it is the runtime's own) to
 * 0600 and 0700, for a start that only reads it: nothing new to write, yet no wider mode is kept.
 */
export function narrowPrivateFile(file: string, options: { readonly narrowFolder: boolean }): void {
  if (!existsSync(file)) return;
  if (options.narrowFolder) chmodSync(dirname(file), PRIVATE_FOLDER_MODE);
  chmodSync(file, PRIVATE_FILE_MODE);
}
