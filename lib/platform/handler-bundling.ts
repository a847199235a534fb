/**
 * How every handler is bundled: esbuild's options, in one home. The synthesis builds every handler
 * with them (HandlerBundles), and the bench (figure `functions`) bundles its bare handler with the
 * same, so both are built alike.
 */
import type { BuildOptions } from 'esbuild';

export const HANDLER_BUNDLING = {
  bundle: true,
  platform: 'node',
  // CommonJS, as NodejsFunction builds for Node by default: the handler is `index.handler`.
  format: 'cjs',
  minify: true,
  sourcemap: true,
  // The map without the sources' text: NODE_OPTIONS=--enable-source-maps parses the whole map at
  // load, and the text is 70% of it (agent: 1,954 KB with, 537 KB without). Stack traces still name
  // lambdas/**/*.ts lines; only an uncaught error's echo of its source line is lost. Measured (CPU
  // time of require, median of 15 processes): the option cost the agent's init 21 ms with the text,
  // 8 ms without; outbox-relay's 14 and 1 ms.
  sourcesContent: false,
  target: 'node22',
  // The nodejs22.x runtime ships AWS SDK v3; everything else (Powertools, zod) is bundled.
  external: ['@aws-sdk/*'],
  // ES module builds first (esbuild's default for Node is `main`, often CommonJS): esbuild
  // tree-shakes ES modules only. The agent's @smithy/signature-v4 from dist-cjs requires all of
  // @smithy/core (~130 KB of its bundle); from dist-es only what signing uses.
  mainFields: ['module', 'main'],
} as const satisfies BuildOptions;
