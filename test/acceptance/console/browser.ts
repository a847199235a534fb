/**
 * The browser the console's tests drive: Debian's chromium through playwright-core (downloading a
 * browser does not work on the CI machines, so none is downloaded). A machine without one fails
 * with how to install it: a console that was never looked at is not a passing test.
 */
import { execFileSync } from 'node:child_process';
import { type Browser, chromium } from 'playwright-core';

/** Where the browser is: CHROMIUM_PATH, else `chromium` on the PATH. */
export function chromiumPath(): string {
  const named = process.env.CHROMIUM_PATH;
  if (named) return named;
  try {
    return execFileSync('which', ['chromium'], { encoding: 'utf8' }).trim();
  } catch {
    throw new Error(
      'The console tests need a Chromium browser and none is installed: on Debian or Ubuntu run ' +
        '`sudo apt-get install -y chromium` (or set CHROMIUM_PATH to a Chromium or Chrome binary).',
    );
  }
}

/**
 * Headless, and nothing that reaches the network on its own. playwright-core gives each launch a
 * fresh profile (a temporary --user-data-dir it deletes on close).
 */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
