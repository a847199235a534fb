/**
 * The Markdown is the map of the house, so it must not point at nothing: every relative link of
 * every Markdown file resolves to a file or folder (and its `#anchor` to a heading of the target),
 * and every `npm run <script>` the docs mention exists in package.json. A moved file or renamed
 * script fails here, not in a reader's terminal.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../../..');
/** Generated, installed or third-party trees: not the project's docs. */
const SKIPPED = new Set(['node_modules', 'cdk.out', 'dist', 'coverage']);

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name.startsWith('.') || SKIPPED.has(entry.name)) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return markdownFiles(path);
    return entry.name.endsWith('.md') ? [path] : [];
  });
}

/** The text without fenced code blocks and inline code, where brackets are not links. */
function prose(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function headingAnchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/`/g, '')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const match of markdown.replace(/^```[\s\S]*?^```/gm, '').matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = headingAnchor(match[1] as string);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

interface Link {
  readonly file: string;
  readonly target: string;
}

function relativeLinks(file: string): Link[] {
  const text = prose(readFileSync(file, 'utf8'));
  const links: Link[] = [];
  for (const match of text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    const target = match[1] as string;
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto: ...
    links.push({ file, target });
  }
  return links;
}

const files = markdownFiles(ROOT);
const scripts = Object.keys(
  (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> })
    .scripts,
);

describe('the docs as a map', () => {
  it('finds the Markdown files (README.md among them)', () => {
    expect(files.map((file) => relative(ROOT, file))).toContain('README.md');
  });

  it('has every relative link resolve, anchors included', () => {
    const broken: string[] = [];
    for (const file of files) {
      for (const { target } of relativeLinks(file)) {
        const [path = '', anchor] = target.split('#');
        const resolved = path === '' ? file : resolve(dirname(file), decodeURIComponent(path));
        const where = `${relative(ROOT, file)} -> ${target}`;
        if (!existsSync(resolved)) {
          broken.push(`${where}: no such file`);
          continue;
        }
        if (anchor && resolved.endsWith('.md') && statSync(resolved).isFile()) {
          if (!anchorsOf(readFileSync(resolved, 'utf8')).has(anchor))
            broken.push(`${where}: no such heading`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it('mentions only npm scripts that package.json has', () => {
    const unknown: string[] = [];
    for (const file of [...files, join(ROOT, 'package.json')]) {
      for (const match of readFileSync(file, 'utf8').matchAll(/npm run ([a-z0-9][\w:.-]*)/g)) {
        const script = (match[1] as string).replace(/[.:]+$/, '');
        if (!scripts.includes(script)) unknown.push(`${relative(ROOT, file)}: npm run ${script}`);
      }
    }
    expect(unknown).toEqual([]);
  });

  it('makes GitHub’s anchors from headings', () => {
    expect(headingAnchor('Operations: alarms and dashboard')).toBe('operations-alarms-and-dashboard');
    expect(headingAnchor('IAM, as strict as AWS')).toBe('iam-as-strict-as-aws');
    expect(headingAnchor('The `local` profile')).toBe('the-local-profile');
  });
});
