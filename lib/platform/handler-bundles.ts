/**
 * Every handler of the project bundled by one esbuild build, shared by all the functions of a
 * synthesis.
 *
 * Why: NodejsFunction runs esbuild once per function, each time through `npx` in a process of its
 * own: 0.8 s apiece, 20 of the 30 s a synthesis of both wings took (24 functions), and `npm test`
 * synthesizes the app about 8 times. One build of all the entries parses each shared module once
 * (1.7 s for the 24) and gives the same code byte for byte (esbuild bundles each entry on its own
 * when splitting is off).
 *
 * It plugs into CDK as local bundling, so the rest is CDK's as before: the asset is hashed from its
 * output, staged into the assembly, and not built at all where a stack's bundling is skipped
 * (`aws:cdk:bundling-stacks`, as the infrastructure tests do). The build is made on the first
 * function's request, from the sources as they are then, and kept in memory (about 23 MB for the
 * 24 handlers, nothing on disk to clean up); each function's request writes its two files. The
 * handlers are every `handlers/*.ts` under `lambdas/`, and any other entry a function names (a build
 * with it added is made then).
 *
 * Source maps name their sources from the project root (`lambdas/shared/…`, `node_modules/zod/…`),
 * not from wherever the build ran, so a bundle is the same bytes whichever directory built it, and
 * a deployed stack trace names `/var/task/lambdas/…`.
 */
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import type { ILocalBundling } from 'aws-cdk-lib';
import { buildSync, type OutputFile } from 'esbuild';
import { HANDLER_BUNDLING } from './handler-bundling';

/** The files a bundle is made of, as Lambda loads them (`index.handler`). */
const BUNDLE_FILES = ['index.js', 'index.js.map'] as const;

/** A build's output files by handler, then by file name. */
type Build = ReadonlyMap<string, ReadonlyMap<string, Uint8Array>>;

/** Where esbuild is told it writes (it writes nothing): the maps' sources are rewritten from it. */
const VIRTUAL_OUTDIR = '.handler-bundles';

export class HandlerBundles {
  private static readonly byRoot = new Map<string, HandlerBundles>();

  /** The bundles of the project at `projectRoot` (handlers under its `lambdas/`), one per process. */
  static of(projectRoot: string): HandlerBundles {
    const root = resolve(projectRoot);
    let bundles = HandlerBundles.byRoot.get(root);
    if (!bundles) {
      bundles = new HandlerBundles(root);
      HandlerBundles.byRoot.set(root, bundles);
    }
    return bundles;
  }

  private build: Build | undefined;
  private buildCount = 0;

  private constructor(private readonly projectRoot: string) {}

  /** How many esbuild builds this process has run for this project (each builds every handler). */
  get builds(): number {
    return this.buildCount;
  }

  /**
   * CDK local bundling for one handler (`wing/handlers/name`, under `lambdas/`, no extension):
   * copies its bundle into the directory CDK stages as the asset.
   */
  localBundling(handler: string): ILocalBundling & { readonly handler: string } {
    return {
      // CDK keys its in-process asset cache by the bundling options' JSON, in which a function is
      // nothing: without the name, the functions of one directory would all get the first's asset.
      handler,
      tryBundle: (outputDir: string) => {
        this.copyInto(handler, outputDir);
        return true;
      },
    };
  }

  /** Writes `handler`'s index.js and its map into `outputDir`, building every handler first if needed. */
  copyInto(handler: string, outputDir: string): void {
    const files = this.buildWith(handler).get(handler);
    mkdirSync(outputDir, { recursive: true });
    for (const name of BUNDLE_FILES) {
      const contents = files?.get(name);
      if (!contents) throw new Error(`esbuild wrote no ${name} for handler ${handler}`);
      writeFileSync(join(outputDir, name), contents);
    }
  }

  private buildWith(handler: string): Build {
    if (this.build?.has(handler)) return this.build;
    const handlers = new Set([...this.handlerNames(), ...(this.build?.keys() ?? []), handler]);
    const lambdas = join(this.projectRoot, 'lambdas');
    const outdir = join(this.projectRoot, VIRTUAL_OUTDIR);
    this.buildCount += 1;
    let outputFiles: readonly OutputFile[];
    try {
      ({ outputFiles } = buildSync({
        ...HANDLER_BUNDLING,
        absWorkingDir: this.projectRoot,
        entryPoints: Object.fromEntries(
          [...handlers].sort().map((name) => [`${name}/index`, join(lambdas, `${name}.ts`)]),
        ),
        outdir,
        write: false,
        logLevel: 'silent',
      }));
    } catch (error) {
      // esbuild's message names each error's file, line and text.
      throw new Error(`Bundling the handlers under ${lambdas} failed: ${(error as Error).message}`);
    }
    const build = new Map<string, Map<string, Uint8Array>>();
    for (const file of outputFiles) {
      const name = basename(file.path);
      const owner = relative(outdir, dirname(file.path)).split(sep).join('/');
      const files = build.get(owner) ?? new Map<string, Uint8Array>();
      files.set(name, name.endsWith('.map') ? this.rootSourceMap(file) : file.contents);
      build.set(owner, files);
    }
    this.build = build;
    return build;
  }

  /** Every `handlers/<name>.ts` under `lambdas/`, as `wing/handlers/name`. */
  private handlerNames(): string[] {
    const lambdas = join(this.projectRoot, 'lambdas');
    const names: string[] = [];
    const walk = (directory: string) => {
      for (const entry of readdirSync(directory, { withFileTypes: true })) {
        const path = join(directory, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) {
          if (basename(directory) === 'handlers') {
            names.push(relative(lambdas, path).slice(0, -'.ts'.length).split(sep).join('/'));
          }
        }
      }
    };
    walk(lambdas);
    return names;
  }

  /** The map with its sources named from the project root instead of from the map's directory. */
  private rootSourceMap(file: OutputFile): Uint8Array {
    const map = JSON.parse(file.text) as { sources: string[] };
    map.sources = map.sources.map((source) =>
      relative(this.projectRoot, resolve(dirname(file.path), source))
        .split(sep)
        .join('/'),
    );
    return Buffer.from(JSON.stringify(map));
  }
}
