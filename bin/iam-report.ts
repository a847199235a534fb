#!/usr/bin/env node
/**
 * npm run iam:report: the least-privilege report (lib/local-runtime/iam/unused-access.ts) of the runs
 * the local runtime recorded: for each role, its statements with the requests each allowed, the
 * actions it names that were never called, and what was used under each wildcard; then the denials.
 *
 *   npm run iam:report [-- FILE_OR_DIR ...] [--json]
 *
 * Default inputs: what `npm test` leaves (the acceptance suite's `.local/acceptance/iam/usage.json`
 * and the short campaigns' `.local/chaos-test/iam-*\/start-*\/usage.json`), and `npm start`'s
 * `.local/iam/usage.json`. A directory is searched for usage.json files.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { formatTable } from '../lib/harness/text-table';
import { PROJECT_ROOT } from '../lib/local-runtime';
import { unusedAccessReport } from '../lib/local-runtime/iam/unused-access';
import { IAM_RECORD_FILES, type IamUsageRecord } from '../lib/local-runtime/iam/usage-record';

const DEFAULT_INPUTS = ['.local/acceptance/iam', '.local/chaos-test', '.local/iam'];

function usageFiles(path: string): string[] {
  if (!existsSync(path)) return [];
  if (statSync(path).isFile()) return [path];
  return readdirSync(path, { recursive: true, encoding: 'utf8' })
    .filter((entry) => entry.endsWith(IAM_RECORD_FILES.usage))
    .map((entry) => join(path, entry));
}

function main(argv: readonly string[]): number {
  const json = argv.includes('--json');
  const unknown = argv.filter((arg) => arg.startsWith('--') && arg !== '--json');
  if (unknown.length > 0) {
    console.error(
      `Unknown option ${unknown.join(', ')} (usage: npm run iam:report [-- FILE_OR_DIR ...] [--json])`,
    );
    return 2;
  }
  const inputs = argv.filter((arg) => !arg.startsWith('--'));
  const files = (inputs.length > 0 ? inputs : DEFAULT_INPUTS).flatMap((input) =>
    usageFiles(resolve(PROJECT_ROOT, input)),
  );
  if (files.length === 0) {
    console.error(
      `No ${IAM_RECORD_FILES.usage} in ${(inputs.length > 0 ? inputs : DEFAULT_INPUTS).join(', ')}: run the acceptance suite, a campaign or npm start first`,
    );
    return 1;
  }
  const records = files.map((file) => JSON.parse(readFileSync(file, 'utf8')) as IamUsageRecord);
  const report = unusedAccessReport(records);
  if (json) {
    console.log(JSON.stringify(report, null, 2));
    return 0;
  }
  console.log(`${report.runs} run(s): ${files.join(', ')}\n`);
  for (const principal of report.principals) {
    const name = principal.principal.slice(principal.principal.indexOf(':', 'arn:aws:iam::'.length) + 1);
    const rows = principal.statements.map((statement) => [
      `${statement.policy}#${statement.sid}`,
      String(statement.allowedRequests),
      statement.unusedActions.join(' ') || '-',
      statement.wildcards
        .map(({ pattern, used }) => `${pattern} (used: ${used.join(' ') || 'none'})`)
        .join('; ') || '-',
    ]);
    console.log(name);
    console.log(
      formatTable([
        ['  STATEMENT', 'REQUESTS', 'NEVER CALLED', 'WILDCARDS'],
        ...rows.map(([first, ...rest]) => [`  ${first}`, ...rest] as string[]),
      ]),
    );
    console.log('');
  }
  const denials = Object.entries(report.denials);
  console.log(
    denials.length === 0 ? 'No request was denied.' : `Denied (or would have been, in report mode):`,
  );
  for (const [message, count] of denials) console.log(`  x${count} ${message}`);
  return 0;
}

process.exitCode = main(process.argv.slice(2));
