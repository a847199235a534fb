/**
 * The house as its code draws it: every product file, its relative imports, its functions' lengths.
 * One reader for the house-rules test (which areas may import which, no cycles, no file or function
 * past its size without a written reason) and for `npm run house` (the measures a restructuring is
 * judged by: folders, import arrows between folders, largest files and functions).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import * as ts from 'typescript';

export const ROOT = resolve(__dirname, '..');
export const SOURCE_ROOTS = ['bin', 'lib', 'lambdas', 'console/src', 'console/contract', 'scripts'] as const;

export function sourceFiles(directory: string): string[] {
  return readdirSync(join(ROOT, directory)).flatMap((name) => {
    const path = join(directory, name);
    if (statSync(join(ROOT, path)).isDirectory()) return sourceFiles(path);
    return /\.(ts|tsx|js|mjs)$/.test(name) ? [path] : [];
  });
}

function resolveImport(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const base = join(dirname(from), specifier);
  for (const candidate of [
    base,
    `${base}.ts`,
    `${base}.tsx`,
    `${base}.js`,
    join(base, 'index.ts'),
    join(base, 'index.js'),
  ]) {
    try {
      if (statSync(join(ROOT, candidate)).isFile()) return relative(ROOT, join(ROOT, candidate));
    } catch {
      // not this candidate
    }
  }
  if (/\.(css|json)$/.test(specifier)) return undefined;
  throw new Error(`${from}: import '${specifier}' names no file`);
}

/** Every relative import of every product file (type-only imports included: they couple too). */
export function importGraph(roots: readonly string[] = SOURCE_ROOTS): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of roots.flatMap(sourceFiles)) {
    const info = ts.preProcessFile(readFileSync(join(ROOT, file), 'utf8'), true, true);
    const targets = info.importedFiles
      .map((imported) => resolveImport(file, imported.fileName))
      .filter((target): target is string => target !== undefined);
    graph.set(file, targets);
  }
  return graph;
}

export function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string) => {
    state.set(file, 'visiting');
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === 'visiting') found.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file);
  return found;
}

export function lineCount(file: string): number {
  return readFileSync(join(ROOT, file), 'utf8').split('\n').length - 1;
}

/** A function-like body of a file: where it starts, how many lines it spans, whether a reason is written. */
export interface FunctionSpan {
  readonly file: string;
  readonly name: string;
  readonly line: number;
  readonly lines: number;
  /** The text of a `long-function:` comment just above it, if any (why it stays whole). */
  readonly reason?: string;
}

const LONG_FUNCTION_REASON = /long-function:\s*(.+)/;

/** Every function, method, constructor and arrow function of a file, with its length in lines. */
export function functionSpans(file: string): FunctionSpan[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const spans: FunctionSpan[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const holder = ts.isVariableDeclaration(node.parent) ? node.parent.parent.parent : node;
      const comments = ts.getLeadingCommentRanges(text, holder.getFullStart()) ?? [];
      const reason = comments
        .map((range) => LONG_FUNCTION_REASON.exec(text.slice(range.pos, range.end))?.[1])
        .find((found) => found !== undefined);
      spans.push({
        file,
        name: nameOf(node, source),
        line: start + 1,
        lines: end - start + 1,
        ...(reason === undefined ? {} : { reason: reason.trim() }),
      });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return spans;
}

function nameOf(node: ts.Node, source: ts.SourceFile): string {
  if (ts.isConstructorDeclaration(node)) {
    const owner = node.parent;
    return `${ts.isClassLike(owner) && owner.name ? owner.name.text : 'class'}.constructor`;
  }
  const named = node as ts.Node & { name?: ts.Node };
  if (named.name !== undefined) return named.name.getText(source);
  if (ts.isVariableDeclaration(node.parent)) return node.parent.name.getText(source);
  if (ts.isPropertyAssignment(node.parent)) return node.parent.name.getText(source);
  return '(anonymous)';
}

/** A construct prop (a member of an exported `*Props` interface) and what its doc comment says. */
export interface PropDoc {
  readonly file: string;
  readonly prop: string;
  readonly optional: boolean;
  readonly documented: boolean;
  readonly hasDefault: boolean;
}

/** Every member of every exported `*Props` interface of a file (the constructs' props, CDK style). */
export function constructProps(file: string): PropDoc[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const props: PropDoc[] = [];
  for (const statement of source.statements) {
    if (!ts.isInterfaceDeclaration(statement) || !statement.name.text.endsWith('Props')) continue;
    if (!statement.modifiers?.some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword)) continue;
    for (const member of statement.members) {
      if (!ts.isPropertySignature(member)) continue;
      const docs = (ts.getLeadingCommentRanges(text, member.getFullStart()) ?? [])
        .map((range) => text.slice(range.pos, range.end))
        .filter((comment) => comment.startsWith('/**'));
      props.push({
        file,
        prop: `${statement.name.text}.${member.name.getText(source)}`,
        optional: member.questionToken !== undefined,
        documented: docs.length > 0,
        hasDefault: docs.some((comment) => comment.includes('@default')),
      });
    }
  }
  return props;
}

/** The folder a file lives in, as the measures count folders. */
export function folderOf(file: string): string {
  return dirname(file);
}

/** The measures of the house: folders, arrows between them, the largest files and functions. */
export interface HouseMeasures {
  readonly files: number;
  readonly lines: number;
  readonly folders: number;
  readonly arrowsBetweenFolders: number;
  readonly largestFiles: readonly { readonly file: string; readonly lines: number }[];
  readonly filesOver: (limit: number) => number;
  readonly longestFunctions: readonly FunctionSpan[];
  readonly functionsOver: (limit: number) => number;
}

export function measureHouse(roots: readonly string[] = SOURCE_ROOTS): HouseMeasures {
  const graph = importGraph(roots);
  const files = [...graph.keys()];
  const sizes = files.map((file) => ({ file, lines: lineCount(file) })).sort((a, b) => b.lines - a.lines);
  const arrows = new Set<string>();
  for (const [file, targets] of graph) {
    for (const target of targets) {
      if (folderOf(target) !== folderOf(file)) arrows.add(`${folderOf(file)} -> ${folderOf(target)}`);
    }
  }
  const spans = files
    .filter((file) => /\.(ts|tsx)$/.test(file))
    .flatMap(functionSpans)
    .sort((a, b) => b.lines - a.lines);
  return {
    files: files.length,
    lines: sizes.reduce((sum, size) => sum + size.lines, 0),
    folders: new Set(files.map(folderOf)).size,
    arrowsBetweenFolders: arrows.size,
    largestFiles: sizes,
    filesOver: (limit) => sizes.filter((size) => size.lines > limit).length,
    longestFunctions: spans,
    functionsOver: (limit) => spans.filter((span) => span.lines > limit).length,
  };
}

if (require.main === module) {
  const measures = measureHouse();
  const lines = [
    `files ${measures.files}, lines ${measures.lines}, folders ${measures.folders}, import arrows between folders ${measures.arrowsBetweenFolders}`,
    `files over 600 lines: ${measures.filesOver(600)}; functions over 80 lines: ${measures.functionsOver(80)}, over 120: ${measures.functionsOver(120)}`,
    'largest files:',
    ...measures.largestFiles.slice(0, 12).map((size) => `  ${String(size.lines).padStart(5)}  ${size.file}`),
    'longest functions:',
    ...measures.longestFunctions
      .slice(0, 12)
      .map(
        (span) =>
          `  ${String(span.lines).padStart(5)}  ${span.file}:${span.line} ${span.name}${span.reason ? ` (${span.reason})` : ''}`,
      ),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}
