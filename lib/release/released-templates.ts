/**
 * Where the released templates live (checked in under test/infra/upgrade/released/, written by
 * `npm run release:templates`), their file layout, and reading them back with the losses the next
 * release acknowledges (test/infra/upgrade/acknowledged.json).
 *
 * Layout: one file per configuration and stack, `<configuration>/<Stack>.template.json`, and a
 * README naming the release. Each file is JSON with one line per resource (and per output,
 * parameter, ...): small (no indentation of the resources' insides) and reviewable, since a change
 * to a resource is a change to its line. Biome leaves the folder alone (biome.json), as it leaves
 * other generated data.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { CfnTemplate } from './template';
import type { Acknowledgment } from './upgrade-finding';

const PROJECT_ROOT = path.resolve(__dirname, '..', '..');
export const UPGRADE_TEST_DIR = path.join(PROJECT_ROOT, 'test', 'infra', 'upgrade');
export const RELEASED_DIR = path.join(UPGRADE_TEST_DIR, 'released');
export const ACKNOWLEDGMENTS_FILE = path.join(UPGRADE_TEST_DIR, 'acknowledged.json');

export const releasedTemplatePath = (configuration: string, stack: string): string =>
  path.join(RELEASED_DIR, configuration, `${stack}.template.json`);

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A template as the fixture files hold it: one line per entry of each section (see the header). */
export function toFixtureJson(template: CfnTemplate): string {
  const sections = Object.entries(template);
  const lines = ['{'];
  sections.forEach(([section, value], index) => {
    const comma = index < sections.length - 1 ? ',' : '';
    const entries = isRecord(value) ? Object.entries(value) : [];
    if (entries.length === 0) {
      lines.push(`  ${JSON.stringify(section)}: ${JSON.stringify(value)}${comma}`);
      return;
    }
    lines.push(`  ${JSON.stringify(section)}: {`);
    entries.forEach(([key, item], at) => {
      lines.push(`    ${JSON.stringify(key)}: ${JSON.stringify(item)}${at < entries.length - 1 ? ',' : ''}`);
    });
    lines.push(`  }${comma}`);
  });
  lines.push('}');
  return `${lines.join('\n')}\n`;
}

/** The released template of a configuration's stack, or undefined when that release had none. */
export function readReleasedTemplate(configuration: string, stack: string): CfnTemplate | undefined {
  const file = releasedTemplatePath(configuration, stack);
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as CfnTemplate) : undefined;
}

/** A stack's acknowledged loss: the file holds a list of them. */
export interface StackAcknowledgment extends Acknowledgment {
  readonly stack: string;
}

/** The losses acknowledged since the release (empty right after one). */
export function readAcknowledgments(file = ACKNOWLEDGMENTS_FILE): StackAcknowledgment[] {
  if (!existsSync(file)) return [];
  const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
  if (!Array.isArray(parsed)) {
    throw new Error(`${file}: expected a list of { stack, logicalId, rule, reason }`);
  }
  for (const [index, item] of parsed.entries()) {
    const missing = ['stack', 'logicalId', 'rule', 'reason'].filter(
      (key) => !isRecord(item) || typeof item[key] !== 'string',
    );
    if (missing.length > 0) {
      throw new Error(`${file}: entry ${index} has no ${missing.join(', ')}`);
    }
  }
  return parsed as StackAcknowledgment[];
}

export interface Release {
  /** The release's name, `v<package.json version>`. */
  readonly name: string;
  /** The commit the templates were synthesized from. */
  readonly commit: string;
  /** Each configuration: its context and who deploys it. */
  readonly configurations: readonly {
    readonly name: string;
    readonly context: Readonly<Record<string, string>>;
    readonly deploys: string;
  }[];
}

function readme(release: Release): string {
  const rows = release.configurations.map(
    (configuration) =>
      `| \`${configuration.name}/\` | ${
        Object.entries(configuration.context)
          .map(([key, value]) => `\`-c ${key}=${value}\``)
          .join(' ') || 'none'
      } | ${configuration.deploys} |`,
  );
  return [
    `# Released templates: ${release.name}`,
    '',
    `The synthesized templates of release ${release.name} (commit ${release.commit}), normalized by`,
    '`lib/release/normalize-template.ts` (asset hashes, CDK metadata and large documents), one file per',
    'configuration and stack. `test/infra/upgrade/upgrade-safety.test.ts` diffs the current templates',
    'against them. Written by `npm run release:templates` when a release is cut (README, Releasing);',
    'never edited by hand.',
    '',
    '| Folder | CDK context (besides cdk.json) | Deployed by |',
    '|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}

/** Replaces the released templates with `templates` (by configuration, then stack) of `release`, and clears the acknowledgments. */
export function writeReleasedTemplates(
  release: Release,
  templates: ReadonlyMap<string, ReadonlyMap<string, CfnTemplate>>,
): void {
  rmSync(RELEASED_DIR, { recursive: true, force: true });
  for (const [configuration, stacks] of templates) {
    mkdirSync(path.join(RELEASED_DIR, configuration), { recursive: true });
    for (const [stack, template] of stacks) {
      writeFileSync(releasedTemplatePath(configuration, stack), toFixtureJson(template));
    }
  }
  writeFileSync(path.join(RELEASED_DIR, 'README.md'), readme(release));
  writeFileSync(ACKNOWLEDGMENTS_FILE, '[]\n');
}
