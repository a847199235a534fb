/**
 * The bench figures the docs quote, tied to the run they quote (docs/performance.md, "Quoted
 * figures"). A figure is typed by hand in the prose and followed, with no space, by a marker naming
 * its measurement in bench/results.json: `$0.316<!-- bench:order-cost/processed.usdPer1000 -->`.
 * The run itself is quoted the same way: `1446737<!-- bench:commit -->`, `2026-12-02<!-- bench:date -->`,
 * `416<!-- bench:run/durationSeconds -->`. A quoted number must read exactly as the bench's own
 * table writes the measured value (formatNumber: thousands separated; no decimals from 100, two from
 * 1, three below 1; trailing zeros dropped), so a checked figure has one spelling and `--write` can
 * refresh it. Text in code spans and fenced blocks is not read (the docs show markers as examples).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { type BenchResults, formatNumber } from '../core/results';

/** A Markdown file, by its path from the project root, and its text. */
export interface QuotedDocument {
  readonly path: string;
  readonly text: string;
}

/** What a marker names: the run's commit or date, a number of the run, or a figure's measurement. */
export type FigureReference =
  | { readonly kind: 'commit' }
  | { readonly kind: 'date' }
  | { readonly kind: 'run'; readonly path: string }
  | { readonly kind: 'measurement'; readonly figure: string; readonly key: string };

/** `<!-- bench:<reference> -->`; the reference runs to the closing `-->` (keys may hold spaces). */
const MARKER = /<!--\s*bench:(.*?)\s*-->/g;
/** What each kind of marker checks, right before it (no space between). */
const QUOTED_NUMBER = /(?:(?<!\d)-)?\d[\d,]*(?:\.\d+)?$/;
const QUOTED_SHA = /(?<![0-9a-zA-Z])[0-9a-f]{7,40}$/;
const QUOTED_DATE = /\d{4}-\d{2}-\d{2}$/;

/** Generated, installed or third-party trees: not the project's docs (as docs-links.test.ts). */
const SKIPPED = new Set(['node_modules', 'cdk.out', 'dist', 'coverage']);

/** The marker's reference, or why it names nothing. */
export function parseReference(text: string): FigureReference | { readonly error: string } {
  if (text === 'commit') return { kind: 'commit' };
  if (text === 'date') return { kind: 'date' };
  const slash = text.indexOf('/');
  const head = slash < 0 ? '' : text.slice(0, slash);
  const tail = slash < 0 ? '' : text.slice(slash + 1);
  if (head === '' || tail === '') {
    return { error: "a marker names 'commit', 'date', 'run/<field>' or '<figure id>/<measurement key>'" };
  }
  return head === 'run' ? { kind: 'run', path: tail } : { kind: 'measurement', figure: head, key: tail };
}

function referenceName(reference: FigureReference): string {
  switch (reference.kind) {
    case 'commit':
    case 'date':
      return reference.kind;
    case 'run':
      return `run/${reference.path}`;
    case 'measurement':
      return `${reference.figure}/${reference.key}`;
  }
}

/** The run's date as the docs write it: the UTC day results.json's run started. */
export function runDate(results: Pick<BenchResults, 'startedAt'>): string {
  return results.startedAt.slice(0, 10);
}

/** The value a reference names in the results, or why there is none. */
function measured(
  reference: Exclude<FigureReference, { kind: 'commit' | 'date' }>,
  results: BenchResults,
  resultsName: string,
): number | { readonly error: string } {
  if (reference.kind === 'run') {
    let value: unknown = results;
    for (const part of reference.path.split('.')) {
      value =
        typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[part] : undefined;
    }
    return typeof value === 'number'
      ? value
      : { error: `${resultsName} has no number at '${reference.path}'` };
  }
  const figure = results.figures.find((candidate) => candidate.id === reference.figure);
  if (!figure) {
    const ids = results.figures.map((candidate) => candidate.id).join(', ');
    return { error: `figure '${reference.figure}' is not in ${resultsName} (its figures: ${ids || 'none'})` };
  }
  const measurement = figure.measurements.find((candidate) => candidate.key === reference.key);
  if (!measurement)
    return { error: `${resultsName} has no measurement '${reference.key}' in figure '${figure.id}'` };
  return measurement.value;
}

/** The quoted token a reference expects before it, and the text it should read. */
interface Expectation {
  readonly token: RegExp;
  readonly what: string;
  /** The right text given what is quoted, the measured value as said in a message, or an error. */
  readonly expected: (
    quoted: string,
  ) => { readonly text: string; readonly measured: string } | { readonly error: string };
}

function expectation(reference: FigureReference, results: BenchResults, resultsName: string): Expectation {
  if (reference.kind === 'commit') {
    const sha = results.commit.sha;
    return {
      token: QUOTED_SHA,
      what: 'commit (7 to 40 hex digits)',
      expected: (quoted) => ({ text: sha.startsWith(quoted) ? quoted : sha.slice(0, 7), measured: sha }),
    };
  }
  if (reference.kind === 'date') {
    return {
      token: QUOTED_DATE,
      what: 'date (YYYY-MM-DD)',
      expected: () => ({
        text: runDate(results),
        measured: `${runDate(results)} (startedAt ${results.startedAt})`,
      }),
    };
  }
  return {
    token: QUOTED_NUMBER,
    what: 'number',
    expected: () => {
      const value = measured(reference, results, resultsName);
      return typeof value === 'number' ? { text: formatNumber(value), measured: String(value) } : value;
    },
  };
}

/** The text with code spans and fenced blocks blanked, same length and lines, so markers there are not read. */
function prose(markdown: string): string {
  const blank = (text: string) => text.replace(/[^\n]/g, ' ');
  return markdown.replace(/^```[\s\S]*?^```/gm, blank).replace(/`[^`\n]*`/g, blank);
}

/** One marker found in a document, with what it quotes and what it should quote. */
interface MarkerFinding {
  readonly path: string;
  readonly line: number;
  readonly reference: FigureReference | undefined;
  /** The quoted token and its offset, when the marker follows one. */
  readonly quoted?: { readonly text: string; readonly offset: number };
  /** What the quoted token should read, when the results say. */
  readonly expected?: string;
  /** What is wrong with this marker, if anything. */
  readonly problem?: string;
}

function findings(document: QuotedDocument, results: BenchResults, resultsName: string): MarkerFinding[] {
  const text = prose(document.text);
  const found: MarkerFinding[] = [];
  for (const match of text.matchAll(MARKER)) {
    const offset = match.index ?? 0;
    const line = text.slice(0, offset).split('\n').length;
    const at = `${document.path}:${line}`;
    const parsed = parseReference((match[1] ?? '').trim());
    if ('error' in parsed) {
      found.push({
        path: document.path,
        line,
        reference: undefined,
        problem: `${at}: '${match[0]}': ${parsed.error}`,
      });
      continue;
    }
    const name = referenceName(parsed);
    const wanted = expectation(parsed, results, resultsName);
    const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
    const token = wanted.token.exec(text.slice(lineStart, offset));
    if (!token) {
      const problem = `${at}: ${name}: no ${wanted.what} right before the marker (write the figure, then the marker, with no space)`;
      found.push({ path: document.path, line, reference: parsed, problem });
      continue;
    }
    const quoted = { text: token[0], offset: lineStart + token.index };
    const expected = wanted.expected(quoted.text);
    if ('error' in expected) {
      found.push({
        path: document.path,
        line,
        reference: parsed,
        quoted,
        problem: `${at}: ${name}: quoted ${quoted.text}, but ${expected.error}`,
      });
      continue;
    }
    const problem =
      expected.text === quoted.text
        ? undefined
        : `${at}: ${name}: quoted ${quoted.text}, measured ${expected.measured} in ${resultsName} (write ${expected.text})`;
    found.push({
      path: document.path,
      line,
      reference: parsed,
      quoted,
      expected: expected.text,
      problem,
    });
  }
  return found;
}

/**
 * Every problem of the documents' quoted figures against the results, one line each naming the
 * file and line, the marker's key, the quoted and the measured value: a figure that differs, a
 * marker naming a figure or key the results do not hold, a marker after no number, a quoted commit
 * or date that is not the run's, and a document that quotes figures without naming the run's
 * commit and date.
 */
export function checkQuotedFigures(
  documents: readonly QuotedDocument[],
  results: BenchResults,
  resultsName = 'bench/results.json',
): string[] {
  const problems: string[] = [];
  for (const document of documents) {
    const found = findings(document, results, resultsName);
    problems.push(...found.flatMap((finding) => (finding.problem ? [finding.problem] : [])));
    const kinds = new Set(found.map((finding) => finding.reference?.kind));
    if (kinds.has('measurement') || kinds.has('run')) {
      for (const kind of ['commit', 'date'] as const) {
        if (!kinds.has(kind)) {
          problems.push(
            `${document.path}: quotes bench figures but not the run's ${kind} (add \`<!-- bench:${kind} -->\` right after it)`,
          );
        }
      }
    }
  }
  return problems;
}

/**
 * The document with every quoted figure rewritten to what the results say (markers the results
 * cannot answer are left as they are, for the check to report). The words around a figure are not
 * touched: reread them ("met", "faster", a ratio worked out in prose).
 */
export function rewriteQuotedFigures(
  document: QuotedDocument,
  results: BenchResults,
): { readonly text: string; readonly changedLines: readonly number[] } {
  const changes = findings(document, results, 'bench/results.json').filter(
    (finding) => finding.quoted && finding.expected !== undefined && finding.expected !== finding.quoted.text,
  );
  let text = document.text;
  for (const change of [...changes].reverse()) {
    const quoted = change.quoted as NonNullable<MarkerFinding['quoted']>;
    text = text.slice(0, quoted.offset) + change.expected + text.slice(quoted.offset + quoted.text.length);
  }
  return { text, changedLines: [...new Set(changes.map((change) => change.line))] };
}

/** Every Markdown file of the project (dot folders and generated trees skipped), paths from the root. */
export function readMarkdownDocuments(root: string, dir: string = root): QuotedDocument[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name.startsWith('.') || SKIPPED.has(entry.name)) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return readMarkdownDocuments(root, path);
    return entry.name.endsWith('.md')
      ? [{ path: relative(root, path), text: readFileSync(path, 'utf8') }]
      : [];
  });
}
