/**
 * The operator console's build (README, Operator console). Vite 8 transforms TSX with Oxc, so no
 * framework plugin is needed for a production build (React's plugin adds fast refresh, which a
 * page built once per start does not use). The bundle is about 505 kB minified (console/README.md measures it): the contracts' state
 * lists come with the zod schemas beside them, the price of one home for each name. Run by bin/console-build.ts (buildConsoleAssets); the deployed console builds with `--base /`.
 */
import { defineConfig } from 'vite';

export default defineConfig({
  root: import.meta.dirname,
  base: '/console/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'react' } },
  build: { target: 'es2022', sourcemap: true, chunkSizeWarningLimit: 700 },
  logLevel: 'warn',
});
