/**
 * `npm run release:templates`, run when a release is cut (docs/deploy.md, Releasing): synthesizes every
 * released configuration (bin/released-configurations.ts), normalizes the templates and replaces
 * test/infra/upgrade/released/ with them, under a README naming the release (`v` + package.json's
 * version, at the current commit), and empties test/infra/upgrade/acknowledged.json: the losses it
 * held are the new release's past.
 *
 * Prints what changed since the previous release and refuses to write when the upgrade from it
 * fails (a refused update, or a loss nobody acknowledged): run the full test first. `-- --force`
 * writes anyway (a release no one has deployed).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  type CfnTemplate,
  checkUpgrade,
  formatReport,
  normalizeTemplate,
  RELEASED_DIR,
  readAcknowledgments,
  readReleasedTemplate,
  writeReleasedTemplates,
} from '../lib/release';
import { RELEASED_CONFIGURATIONS, synthesizeTemplates } from './released-configurations';

const PROJECT_ROOT = resolve(__dirname, '..');
const force = process.argv.includes('--force');

const git = (...args: string[]) => execFileSync('git', args, { cwd: PROJECT_ROOT, encoding: 'utf8' }).trim();
const commit = `${git('rev-parse', '--short', 'HEAD')}${git('status', '--porcelain') === '' ? '' : ' with uncommitted changes'}`;
const { version } = JSON.parse(readFileSync(resolve(PROJECT_ROOT, 'package.json'), 'utf8')) as {
  version: string;
};

const acknowledgments = readAcknowledgments();
const templates = new Map<string, Map<string, CfnTemplate>>();
let failures = 0;
for (const configuration of RELEASED_CONFIGURATIONS) {
  const stacks = new Map<string, CfnTemplate>();
  for (const [stack, template] of synthesizeTemplates(configuration.context)) {
    const current = normalizeTemplate(template);
    stacks.set(stack, current);
    const released = readReleasedTemplate(configuration.name, stack);
    if (released === undefined) {
      console.log(`${configuration.name}/${stack}: new (no released template)`);
      continue;
    }
    const report = checkUpgrade(released, current, {
      acknowledgments: acknowledgments.filter((acknowledgment) => acknowledgment.stack === stack),
    });
    failures += report.failures.length;
    const text = formatReport(`${configuration.name}/${stack}`, report);
    console.log(text === '' ? `${configuration.name}/${stack}: unchanged` : text);
  }
  templates.set(configuration.name, stacks);
}
if (failures > 0 && !force) {
  console.error(
    `${failures} failure(s) against the previous release: nothing written. Fix them (or acknowledge the intended losses in test/infra/upgrade/acknowledged.json); --force writes anyway.`,
  );
  process.exit(1);
}
writeReleasedTemplates({ name: `v${version}`, commit, configurations: RELEASED_CONFIGURATIONS }, templates);
console.log(`Wrote the templates of v${version} (${commit}) to ${RELEASED_DIR}`);
