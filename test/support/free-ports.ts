/**
 * Free loopback ports for tests that start a runtime on a port of their own choosing (the REST
 * APIs' port order is seen only on a fixed base port): a run of free ports, and a port held to make
 * it taken.
 */
import { createServer, type Server } from 'node:net';

/** Listens on `port` of 127.0.0.1, or resolves undefined when it is taken. */
export function occupy(port: number): Promise<Server | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(undefined));
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

/** Releases what `occupy` held (nothing when it held nothing). */
export const release = (server: Server | undefined) =>
  new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));

/** A port whose next `count` ports are free too (checked, then released). */
export async function freePortRun(count: number): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const base = 20_000 + Math.floor(Math.random() * 30_000);
    const held = await Promise.all(Array.from({ length: count }, (_, offset) => occupy(base + offset)));
    await Promise.all(held.map(release));
    if (held.every(Boolean)) return base;
  }
  throw new Error('no run of free ports found');
}
