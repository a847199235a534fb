/**
 * One page, two places: the local backend tells the page it runs locally at the same path where
 * the stack writes the deployed console's config (CONSOLE_CONFIG_FILE).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ConsoleServer, startConsoleServer } from '../../../bin/console-server';
import { CONSOLE_CONFIG_FILE } from '../../../lambdas/scheduler-agent-supervisor/contracts';

let assetsDir: string;
let server: ConsoleServer;

beforeAll(async () => {
  assetsDir = mkdtempSync(join(tmpdir(), 'console-page-'));
  writeFileSync(join(assetsDir, 'index.html'), '<!doctype html><title>console</title>');
  server = await startConsoleServer({ backend: () => undefined, port: 0, assetsDir });
});
afterAll(async () => {
  await server.stop();
  rmSync(assetsDir, { recursive: true, force: true });
});

it('the local backend answers the config file with the local mode, under its strict CSP', async () => {
  const response = await fetch(new URL(CONSOLE_CONFIG_FILE, server.url));
  expect(response.status).toBe(200);
  expect(response.headers.get('content-security-policy')).toContain("connect-src 'self'");
  expect(await response.json()).toEqual({ mode: 'local' });
});
