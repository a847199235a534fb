#!/usr/bin/env node
/**
 * npm run seeded-run: the app on a seeded virtual clock (lib/chaos/orders/seeded-run.ts), its
 * trace written to a file; the same seed on the same commit writes the same trace. Exits 1 when an
 * order or a delivery did not end in a terminal state, 2 on bad arguments.
 *
 *   npm run seeded-run -- [--seed 1] [--orders 3] [--deliveries 0] [--minutes 20]
 *                         [--trace .local/seeded-run/trace-<seed>.txt] [--assembly DIR]
 */
import { CampaignArguments, runCampaignCommand } from '../lib/chaos/common/arguments';
import { type SeededRunCommandOptions, seededRunCommand } from '../lib/chaos/orders/seeded-run-command';

const USAGE =
  'Usage: npm run seeded-run -- [--seed N] [--orders N] [--minutes N] [--trace FILE] [--assembly DIR]';

export function parseSeededRunArguments(argv: readonly string[]): SeededRunCommandOptions {
  const args = new CampaignArguments(
    argv,
    ['--seed', '--orders', '--deliveries', '--minutes', '--trace', '--assembly'],
    [],
    USAGE,
  );
  const seed = args.integer('--seed', 0) ?? 1;
  const assemblyDir = args.text('--assembly');
  return {
    seed,
    orders: args.integer('--orders', 1) ?? 3,
    deliveries: args.integer('--deliveries', 0) ?? 0,
    clockMinutes: args.integer('--minutes', 1) ?? 20,
    traceFile: args.text('--trace') ?? `.local/seeded-run/trace-${seed}.txt`,
    ...(assemblyDir !== undefined && { assemblyDir }),
  };
}

if (require.main === module) runCampaignCommand(parseSeededRunArguments, seededRunCommand);
