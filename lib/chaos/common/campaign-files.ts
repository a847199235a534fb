/**
 * A campaign run's files and how it starts the runtime on them, the same for orders and deliveries:
 * `s<seed>-<ISO time>` names the data directory, the function logs, the runtime's log and the
 * summary; each start (a restart included) records IAM denials in a directory of its own, so a
 * restart does not overwrite the last one's.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { operatorUserOf } from '../../harness/operator-user';
import {
  type FaultHooks,
  type LocalRuntime,
  type RuntimeClock,
  startLocalRuntime,
} from '../../local-runtime';
import { iamRecordDirOf } from './iam-denials';

export interface CampaignFiles {
  readonly runId: string;
  readonly dataDir: string;
  readonly functionLogDir: string;
  /** One IAM record directory per start, in order. */
  readonly iamRecordDirs: readonly string[];
  /**
   * Starts the runtime on `assemblyDir` with the run's data directory and the injector's hooks,
   * the operator user of `stackName`, on free ports and without a target file.
   */
  startRuntime(assemblyDir: string, faults: FaultHooks, stackName: string): Promise<LocalRuntime>;
}

/** The files of a new run of `seed` under `workDir` (its runtime log created empty). */
/** `clock`: the one clock of every start of the run (time never goes back at a restart). */
export function campaignFiles(workDir: string, seed: number, clock?: RuntimeClock): CampaignFiles {
  const runId = `s${seed}-${new Date().toISOString().replace(/[:.]/g, '-')}`;
  const dataDir = join(workDir, `data-${runId}`);
  const functionLogDir = join(workDir, `logs-${runId}`);
  const runtimeLog = join(workDir, `runtime-${runId}.log`);
  const iamRecordDirs: string[] = [];
  writeFileSync(runtimeLog, '');
  return {
    runId,
    dataDir,
    functionLogDir,
    iamRecordDirs,
    startRuntime: (assemblyDir, faults, stackName) => {
      const iamRecordDir = iamRecordDirOf(workDir, runId, iamRecordDirs.length);
      iamRecordDirs.push(iamRecordDir);
      return startLocalRuntime({
        assemblyDir,
        port: 0,
        dataDir,
        targetFile: null,
        functionLogDir,
        faults,
        ...(clock && { clock }),
        iamRecordDir,
        users: operatorUserOf(stackName),
        log: (line) => writeFileSync(runtimeLog, `${new Date().toISOString()} ${line}\n`, { flag: 'a' }),
      });
    },
  };
}
