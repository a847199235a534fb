/**
 * Test layers (see README "Tests"): each is a Jest project so one layer can run alone,
 * e.g. `npx jest --selectProjects unit`. `npm test` runs them all after lint, type-check and synth.
 * TypeScript is transpiled by SWC; type errors are caught by `tsc --noEmit` in `npm test`.
 */
// The runtimes the tests start (test/support/test-clock.ts) run on the virtual clock unless
// LOCAL_CLOCK names another (lib/local-runtime/clock/README.md): `npm run test:wall` runs them on
// the wall clock. The README tour and the faults layer run their own runtimes on the wall clock.
process.env.LOCAL_CLOCK ??= 'virtual';

const transform = { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022' } }] };
const layer = (name, extra = {}) => ({
  displayName: name,
  testEnvironment: 'node',
  transform,
  roots: [`<rootDir>/test/${name}`],
  testMatch: ['**/*.test.ts'],
  setupFiles: ['<rootDir>/test/support/polyfills.ts'],
  ...extra,
});

module.exports = {
  projects: [
    layer('unit'),
    layer('infra'),
    // One DynamoDB Local for the whole layer; each test file has its own tables in it.
    layer('integration', {
      globalSetup: '<rootDir>/test/integration/global-setup.ts',
      globalTeardown: '<rootDir>/test/integration/global-teardown.ts',
    }),
    // Black-box scenarios against a running system: the local runtime started by global setup,
    // or the target named by ACCEPTANCE_TARGET (see test/acceptance/setup.ts).
    layer('acceptance', {
      globalSetup: '<rootDir>/test/acceptance/global-setup.ts',
      globalTeardown: '<rootDir>/test/acceptance/global-teardown.ts',
      setupFilesAfterEnv: [
        '<rootDir>/test/acceptance/jest-timeouts.ts',
        '<rootDir>/test/acceptance/iam-watch-setup.ts',
      ],
    }),
    // Fault injection on the local runtime: a short seeded campaign and the broken variants the
    // invariant checker must catch (lib/chaos/README.md; the full campaign is `npm run chaos`).
    layer('faults', { globalSetup: '<rootDir>/test/faults/global-setup.ts' }),
  ],
  testTimeout: 60_000,
  // A few files must start after all others (see the file).
  testSequencer: '<rootDir>/test/support/run-last-sequencer.js',
};
