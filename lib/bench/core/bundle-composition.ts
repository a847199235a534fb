/**
 * What a bundle is made of, read from the bundle and its source map alone (the synthesized asset,
 * not a rebuild): each character of generated code belongs to the source its mapping names, and
 * sources group into packages (`zod`, `@aws-lambda-powertools/logger`) or project folders
 * (`lambdas/shared`).
 */

/** The fields of a source map (version 3) this reads. */
export interface SourceMap {
  readonly sources: readonly string[];
  readonly mappings: string;
}

/** Code no mapping covers (esbuild's runtime helpers, separators). */
export const UNMAPPED = '(unmapped)';

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const BASE64_VALUES = new Map([...BASE64].map((character, index) => [character, index]));

/** The numbers of one mapping segment (Base64 VLQ: 5 bits a digit, continuation bit 32, sign in bit 1). */
export function decodeSegment(segment: string): number[] {
  const values: number[] = [];
  let value = 0;
  let shift = 0;
  for (const character of segment) {
    const digit = BASE64_VALUES.get(character);
    if (digit === undefined) throw new Error(`'${character}' is not a Base64 VLQ digit in '${segment}'`);
    value += (digit & 31) * 2 ** shift;
    if (digit & 32) {
      shift += 5;
      continue;
    }
    values.push(value & 1 ? -Math.floor(value / 2) : value / 2);
    value = 0;
    shift = 0;
  }
  if (shift !== 0) throw new Error(`'${segment}' ends inside a number`);
  return values;
}

/**
 * The package a source path belongs to: the one after its first `node_modules/` (scope included;
 * a copy nested in that package's own node_modules counts as part of it, since that is what would
 * have to go to remove it), else the first two folders of a project path (`lambdas/shared`).
 */
export function packageOf(source: string): string {
  const modules = source.indexOf('node_modules/');
  if (modules >= 0) {
    const parts = source.slice(modules + 'node_modules/'.length).split('/');
    return parts[0]?.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? source);
  }
  const parts = source.replace(/^(\.\.?\/)+/, '').split('/');
  return parts.length > 2 ? parts.slice(0, 2).join('/') : parts.join('/');
}

/** Characters of generated code per source file (UNMAPPED for code no mapping covers). */
export function charactersBySource(code: string, map: SourceMap): Map<string, number> {
  const counts = new Map<string, number>();
  const add = (source: string, characters: number) => {
    if (characters > 0) counts.set(source, (counts.get(source) ?? 0) + characters);
  };
  const lines = code.split('\n');
  const mappingLines = map.mappings.split(';');
  let sourceIndex = 0;
  lines.forEach((line, lineIndex) => {
    // Generated columns restart on each line; the source index runs on across lines.
    const segments: { column: number; source?: string }[] = [];
    let column = 0;
    for (const segment of (mappingLines[lineIndex] ?? '').split(',')) {
      if (segment === '') continue;
      const [columnDelta = 0, sourceDelta] = decodeSegment(segment);
      column += columnDelta;
      if (sourceDelta === undefined) {
        segments.push({ column });
        continue;
      }
      sourceIndex += sourceDelta;
      segments.push({ column, source: map.sources[sourceIndex] ?? UNMAPPED });
    }
    add(UNMAPPED, Math.min(segments[0]?.column ?? line.length, line.length));
    segments.forEach((segment, index) => {
      const end = Math.min(segments[index + 1]?.column ?? line.length, line.length);
      add(segment.source ?? UNMAPPED, end - segment.column);
    });
    // The newline itself, except after the last line.
    if (lineIndex < lines.length - 1) add(UNMAPPED, 1);
  });
  return counts;
}

/** Characters of generated code per package, largest first. */
export function bundleComposition(code: string, map: SourceMap): { name: string; characters: number }[] {
  const byPackage = new Map<string, number>();
  for (const [source, characters] of charactersBySource(code, map)) {
    const name = source === UNMAPPED ? UNMAPPED : packageOf(source);
    byPackage.set(name, (byPackage.get(name) ?? 0) + characters);
  }
  return [...byPackage]
    .map(([name, characters]) => ({ name, characters }))
    .sort((left, right) => right.characters - left.characters || left.name.localeCompare(right.name));
}
