/**
 * Two stacks with a REST API each, run by the local runtime: the first API on the runtime's port,
 * the second on port+1 (or a free port when that one is taken, said in the log), or in the order the
 * caller names (apiPortOrder), whatever the assembly's order; the target description lists every
 * API by stack, and its apiUrl and apiKey are the base-port API's; each API accepts its own stack's
 * API key only; a redeploy keeps every API on its port.
 */
import { readFileSync } from 'node:fs';
import type { LocalTarget } from '../../../../lib/local-runtime';
import { freePortRun, occupy, release } from '../../../support/free-ports';
import { type MessagingRuntime, startMessagingRuntime } from '../messaging-runtime';

jest.setTimeout(120_000);

const ping = (url: string, apiKey: string) => fetch(`${url}ping`, { headers: { 'x-api-key': apiKey } });

describe('REST APIs of two stacks', () => {
  it('serves the second stack API on port+1, lists both by stack, and takes each stack its own keys', async () => {
    const port = await freePortRun(2);
    const world: MessagingRuntime = await startMessagingRuntime({ port });
    try {
      const { target } = world.runtime;
      const { apis = {} } = target;
      expect(Object.keys(apis)).toEqual(['MessagingFixture', 'MessagingFixtureSecond']);
      const first = apis.MessagingFixture;
      const second = apis.MessagingFixtureSecond;
      expect(first?.url).toBe(`http://localhost:${port}/v1/`);
      expect(second?.url).toBe(`http://localhost:${port + 1}/v1/`);
      expect(target.apiUrl).toBe(first?.url);
      expect(target.apiKey).toBe(first?.apiKeys[0]);
      const written = JSON.parse(readFileSync(world.targetFile, 'utf8')) as LocalTarget;
      expect(written.apis).toEqual(apis);

      const firstKey = first?.apiKeys[0] ?? '';
      const secondKey = second?.apiKeys[0] ?? '';
      expect(firstKey).not.toBe(secondKey);
      expect((await ping(first?.url ?? '', firstKey)).status).toBe(200);
      expect((await ping(second?.url ?? '', secondKey)).status).toBe(200);
      expect((await ping(second?.url ?? '', firstKey)).status).toBe(403);
      expect((await ping(first?.url ?? '', secondKey)).status).toBe(403);
    } finally {
      await world.stop();
    }
  });

  it("puts the APIs in the order named, whatever the assembly's, and makes the base-port API the target's apiUrl", async () => {
    const port = await freePortRun(2);
    const world = await startMessagingRuntime({ port, apiPortOrder: ['MessagingFixtureSecond'] });
    try {
      const { target } = world.runtime;
      const { apis = {} } = target;
      // Listed in port order, the named stack first.
      expect(Object.keys(apis)).toEqual(['MessagingFixtureSecond', 'MessagingFixture']);
      const named = apis.MessagingFixtureSecond;
      expect(named?.url).toBe(`http://localhost:${port}/v1/`);
      expect(apis.MessagingFixture?.url).toBe(`http://localhost:${port + 1}/v1/`);
      expect(target.apiUrl).toBe(named?.url);
      expect(target.apiKey).toBe(named?.apiKeys[0]);
      expect((await ping(target.apiUrl ?? '', target.apiKey ?? '')).status).toBe(200);
      // Both stacks have the RestApi's endpoint output: the base-port stack's wins the merged outputs.
      const endpointOutput = Object.keys(target.stackOutputs.MessagingFixtureSecond ?? {}).find((name) =>
        name.startsWith('ApiEndpoint'),
      );
      expect(endpointOutput).toBeDefined();
      expect(target.outputs[endpointOutput ?? '']).toBe(named?.url);
    } finally {
      await world.stop();
    }
  });

  it('refuses a stack named twice in the order before starting anything', async () => {
    await expect(
      startMessagingRuntime({ apiPortOrder: ['MessagingFixture', 'MessagingFixture'] }),
    ).rejects.toThrow('apiPortOrder names the stack MessagingFixture twice');
  });

  it('keeps every API on its port across a redeploy, free ports included', async () => {
    const world = await startMessagingRuntime({ apiPortOrder: ['MessagingFixtureSecond'], keepData: true });
    try {
      const before = world.runtime.target;
      expect(Object.keys(before.apis ?? {})).toEqual(['MessagingFixtureSecond', 'MessagingFixture']);
      const after = (await world.redeploy()).target;
      expect(after.apis).toEqual(before.apis);
      expect(after.apiUrl).toBe(before.apis?.MessagingFixtureSecond?.url);
      const moved = after.apis?.MessagingFixture;
      expect((await ping(moved?.url ?? '', moved?.apiKeys[0] ?? '')).status).toBe(200);
    } finally {
      await world.stop();
    }
  });

  it('falls back to a free port for a later API whose port is taken, and says so', async () => {
    const port = await freePortRun(2);
    const blocker = await occupy(port + 1);
    const world = await startMessagingRuntime({ port });
    try {
      const second = world.runtime.target.apis?.MessagingFixtureSecond;
      expect(second?.url).not.toBe(`http://localhost:${port + 1}/v1/`);
      expect(world.logLines).toContainEqual(
        expect.stringMatching(
          new RegExp(
            `REST API .* of MessagingFixtureSecond: port ${port + 1} is taken, listening on http://localhost:\\d+ instead`,
          ),
        ),
      );
      expect((await ping(second?.url ?? '', second?.apiKeys[0] ?? '')).status).toBe(200);
    } finally {
      await world.stop();
      await release(blocker);
    }
  });
});
