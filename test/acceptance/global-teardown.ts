export default async function globalTeardown(): Promise<void> {
  await globalThis.acceptanceRuntime?.stop();
  globalThis.acceptanceRuntime = undefined;
}
