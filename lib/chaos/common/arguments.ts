/**
 * Command-line flags of the campaign commands (`npm run chaos`, `npm run chaos:deliveries`): every
 * flag takes a value except the switches named; a bad value throws a message naming the flag.
 */
import { type ClockMode, clockModeOf } from '../../local-runtime';
export class CampaignArguments {
  private readonly values = new Map<string, string>();
  private readonly switches = new Set<string>();

  constructor(
    argv: readonly string[],
    valueFlags: readonly string[],
    switchFlags: readonly string[],
    usage: string,
  ) {
    for (let index = 0; index < argv.length; index += 1) {
      const flag = argv[index] ?? '';
      if (switchFlags.includes(flag)) {
        this.switches.add(flag);
        continue;
      }
      if (!valueFlags.includes(flag)) throw new Error(`Unknown argument '${flag}'. ${usage}`);
      const value = argv[index + 1];
      if (value === undefined || value.startsWith('--')) throw new Error(`${flag} needs a value. ${usage}`);
      this.values.set(flag, value);
      index += 1;
    }
  }

  has(flag: string): boolean {
    return this.switches.has(flag) || this.values.has(flag);
  }

  text(flag: string): string | undefined {
    return this.values.get(flag);
  }

  integer(flag: string, min: number): number | undefined {
    return this.number(flag, (value) => Number.isInteger(value) && value >= min, `an integer >= ${min}`);
  }

  /** `--clock wall|virtual`: the runtime's clock (lib/local-runtime/clock). */
  clock(flag: string): ClockMode | undefined {
    const text = this.values.get(flag);
    return text === undefined ? undefined : clockModeOf(text, flag);
  }

  share(flag: string): number | undefined {
    return this.number(flag, (value) => value >= 0 && value <= 1, 'a number from 0 to 1');
  }

  /** `--only a,b` or `--without a,b` (not both) over the known kinds; undefined when neither. */
  kinds<K extends string>(known: readonly K[]): K[] | undefined {
    const only = this.values.get('--only');
    const without = this.values.get('--without');
    if (only !== undefined && without !== undefined) throw new Error('Use --only or --without, not both');
    if (only !== undefined) return parseKinds('--only', only, known);
    if (without !== undefined) {
      const left = parseKinds('--without', without, known);
      return known.filter((kind) => !left.includes(kind));
    }
    return undefined;
  }

  private number(flag: string, check: (value: number) => boolean, expected: string): number | undefined {
    const text = this.values.get(flag);
    if (text === undefined) return undefined;
    const value = Number(text);
    if (!Number.isFinite(value) || !check(value))
      throw new Error(`${flag} must be ${expected}, got '${text}'`);
    return value;
  }
}

function parseKinds<K extends string>(flag: string, text: string, known: readonly K[]): K[] {
  const kinds = text.split(',').map((kind) => kind.trim());
  for (const kind of kinds) {
    if (!(known as readonly string[]).includes(kind)) {
      throw new Error(`${flag}: unknown fault kind '${kind}'. Known: ${known.join(', ')}`);
    }
  }
  return kinds as K[];
}

/** Options without the flags that were not given (so the campaign's defaults apply). */
export function definedOnly<T>(options: Record<string, unknown>): T {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as T;
}

/** Runs a campaign command: exit 0 when it passed, 1 on a violation or a crash, 2 on bad arguments. */
export function runCampaignCommand<O>(
  parse: (argv: readonly string[]) => O,
  run: (options: O) => Promise<{ readonly summary: string; readonly result: { readonly passed: boolean } }>,
): void {
  // This machine's tools run on Node 20 while the deployed Lambdas run on nodejs22.x; the SDK's
  // Node 20 end-of-support notice says nothing actionable here, so local tools silence it.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  let options: O;
  try {
    options = parse(process.argv.slice(2));
  } catch (error) {
    console.error((error as Error).message);
    process.exit(2);
  }
  run(options).then(
    (report) => {
      console.log(`\n${report.summary}`);
      process.exit(report.result.passed ? 0 : 1);
    },
    (error: Error) => {
      console.error(`chaos campaign crashed: ${error.stack ?? error.message}`);
      process.exit(1);
    },
  );
}
