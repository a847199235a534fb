/**
 * Renders Vega-Lite specs to SVG with the vega and vega-lite packages, headless (`view.toSVG()`
 * with renderer `none`: no canvas, no browser). Reads a JSON array of Vega-Lite specs on stdin,
 * writes a JSON array of SVG documents, in the same order, on stdout.
 *
 * A separate ES module run by `node` (charts.ts spawns it): vega is ESM-only with a top-level
 * await (vega-canvas probes for the optional `canvas` package), which neither the project's
 * CommonJS nor Jest's module loader can require.
 */
import { text } from 'node:stream/consumers';
import * as vega from 'vega';
import { compile } from 'vega-lite';

const specs = JSON.parse(await text(process.stdin));
const svgs = [];
for (const spec of specs) {
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: 'none' });
  svgs.push(await view.toSVG());
  view.finalize();
}
process.stdout.write(JSON.stringify(svgs));
