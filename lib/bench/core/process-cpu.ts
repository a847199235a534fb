/**
 * CPU-seconds by process of the local runtime, read from Linux's /proc: on a shared machine wall
 * time says how busy the neighbours were, CPU time says what the app cost. The runtime runs inside
 * the bench's own process (its servers and pollers on the main thread, each function sandbox a
 * worker thread), DynamoDB Local is a child JVM. Off Linux there is nothing to read: the sample is
 * undefined and the figure says so.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';

/** Where CPU time goes, one key each (measurement keys and labels are built from these). */
export const CPU_PARTS = {
  runtimeMainThread: 'runtime main thread (servers, pollers, Step Functions, metering proxy)',
  runtimeOtherThreads: 'runtime other threads (function sandboxes, V8 GC, libuv)',
  dynamodbLocal: 'DynamoDB Local JVM',
  otherProcesses: 'other child processes',
  endedProcesses:
    'child processes that ended (as the kernel counts them once reaped: a DynamoDB Local stopped with its runtime)',
} as const;
export type CpuPart = keyof typeof CPU_PARTS;

/** CPU-seconds spent so far, by part. */
export type CpuSample = Readonly<Record<CpuPart, number>>;

/**
 * The sum of two adjacent tick fields of a /proc/<pid>/stat (or task/<tid>/stat) line. The command
 * name (field 2) may hold spaces and parentheses, so fields are counted after its last ')':
 * state(3) ppid(4) pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt utime(14)
 * stime(15) cutime(16) cstime(17).
 */
function tickPair(stat: string, caller: string, index: number, names: string): number {
  const close = stat.lastIndexOf(')');
  if (close < 0) throw new Error(`${caller}: not a /proc stat line: ${stat.slice(0, 80)}`);
  const fields = stat
    .slice(close + 2)
    .trim()
    .split(' ');
  const first = Number(fields[index]);
  const second = Number(fields[index + 1]);
  if (!Number.isFinite(first) || !Number.isFinite(second)) {
    throw new Error(`${caller}: no ${names} in: ${stat.slice(0, 120)}`);
  }
  return first + second;
}

/** utime + stime of a /proc stat line, in clock ticks. */
export function statCpuTicks(stat: string): number {
  return tickPair(stat, 'statCpuTicks', 11, 'utime/stime');
}

/**
 * cutime + cstime of a /proc stat line, in clock ticks: the CPU of the process's children that
 * ended and were waited for, theirs included (a shell's JVM counts once the shell is reaped).
 */
export function statEndedChildrenTicks(stat: string): number {
  return tickPair(stat, 'statEndedChildrenTicks', 13, 'cutime/cstime');
}

/** The parent pid of a /proc/<pid>/stat line. */
export function statParentPid(stat: string): number {
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

/** Each part's CPU-seconds between two samples. */
export function cpuSince(before: CpuSample, after: CpuSample): CpuSample {
  const parts = Object.keys(CPU_PARTS) as CpuPart[];
  return Object.fromEntries(parts.map((part) => [part, after[part] - before[part]])) as Record<
    CpuPart,
    number
  >;
}

export const totalCpu = (sample: CpuSample): number =>
  (Object.values(sample) as number[]).reduce((sum, value) => sum + value, 0);

let ticksPerSecond: number | undefined;
function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      // Linux's USER_HZ everywhere it matters.
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

const readStat = (path: string): string | undefined => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    // The process or thread ended between listing and reading.
    return undefined;
  }
};

/** Every live descendant of `root`, with its command name and stat line. */
function descendants(root: number): Array<{ comm: string; stat: string }> {
  const stats = new Map<number, string>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(`/proc/${entry}/stat`);
    if (stat) stats.set(Number(entry), stat);
  }
  const children = new Map<number, number[]>();
  for (const [pid, stat] of stats) {
    const parent = statParentPid(stat);
    children.set(parent, [...(children.get(parent) ?? []), pid]);
  }
  const found: Array<{ comm: string; stat: string }> = [];
  const walk = (pid: number) => {
    for (const child of children.get(pid) ?? []) {
      const stat = stats.get(child) as string;
      found.push({ comm: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), stat });
      walk(child);
    }
  };
  walk(root);
  return found;
}

/**
 * CPU-seconds of this process (the runtime and the bench driving it) split into its main thread
 * and every other thread, and of its live descendants (a `java` one is DynamoDB Local). The
 * process total counts threads that have ended too; child processes that ended count apart, once
 * reaped (endedProcesses).
 * @returns undefined where /proc is not there to read (not Linux)
 */
export function sampleCpu(): CpuSample | undefined {
  const self = process.pid;
  if (!existsSync(`/proc/${self}/task/${self}/stat`)) return undefined;
  const ticks = clockTicks();
  const processStat = readFileSync(`/proc/${self}/stat`, 'utf8');
  const processTicks = statCpuTicks(processStat);
  const mainTicks = statCpuTicks(readFileSync(`/proc/${self}/task/${self}/stat`, 'utf8'));
  let dynamodbLocal = 0;
  let otherProcesses = 0;
  for (const { comm, stat } of descendants(self)) {
    if (comm === 'java') dynamodbLocal += statCpuTicks(stat);
    else otherProcesses += statCpuTicks(stat);
  }
  return {
    runtimeMainThread: mainTicks / ticks,
    runtimeOtherThreads: (processTicks - mainTicks) / ticks,
    dynamodbLocal: dynamodbLocal / ticks,
    otherProcesses: otherProcesses / ticks,
    endedProcesses: statEndedChildrenTicks(processStat) / ticks,
  };
}
