/**
 * CPU-seconds by process for figure 3: the /proc stat fields, the difference of two samples, and
 * real samples of this process and of a child that burns CPU (Linux; elsewhere sampleCpu is
 * undefined, which the last test then checks instead).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import {
  type CpuSample,
  cpuSince,
  sampleCpu,
  statCpuTicks,
  statEndedChildrenTicks,
  statParentPid,
  totalCpu,
} from '../../../lib/bench/core/process-cpu';

const sample = (values: Partial<CpuSample>): CpuSample => ({
  runtimeMainThread: 0,
  runtimeOtherThreads: 0,
  dynamodbLocal: 0,
  otherProcesses: 0,
  endedProcesses: 0,
  ...values,
});

/** Samples until `moved` holds (CPU accounting advances in ticks, and a loaded machine schedules late). */
function sampleUntil(moved: (now: CpuSample) => boolean, work: () => void): CpuSample {
  const giveUpAt = Date.now() + 30_000;
  for (;;) {
    work();
    const now = sampleCpu() as CpuSample;
    if (moved(now) || Date.now() > giveUpAt) return now;
  }
}

describe('process CPU accounting', () => {
  it('reads utime + stime and the parent after the command name, even one with spaces and parentheses', () => {
    const stat = '4242 (node (worker) x) S 17 4242 4242 0 -1 4194560 1200 0 3 0 250 75 0 0 20 0 12 0 900 0 0';
    expect(statCpuTicks(stat)).toBe(325);
    expect(statParentPid(stat)).toBe(17);
    // cutime and cstime: the reaped children's.
    expect(statEndedChildrenTicks(stat)).toBe(0);
    const withChildren = '4242 (node (worker) x) S 17 4242 4242 0 -1 4194560 1200 0 3 0 250 75 40 8 20 0 12';
    expect(statEndedChildrenTicks(withChildren)).toBe(48);
  });

  it('fails on a line that is not a stat line', () => {
    expect(() => statCpuTicks('no parenthesis here')).toThrow(/not a \/proc stat line/);
    expect(() => statCpuTicks('1 (x) S 2')).toThrow(/no utime\/stime/);
  });

  it('subtracts two samples part by part and adds a sample up', () => {
    const delta = cpuSince(
      sample({ runtimeMainThread: 1, dynamodbLocal: 2 }),
      sample({ runtimeMainThread: 1.5, dynamodbLocal: 5, otherProcesses: 0.25 }),
    );
    expect(delta).toEqual(sample({ runtimeMainThread: 0.5, dynamodbLocal: 3, otherProcesses: 0.25 }));
    expect(totalCpu(delta)).toBe(3.75);
  });

  it('counts CPU burnt on the main thread and in a child process (nothing to count without /proc)', async () => {
    if (!existsSync('/proc/self/stat')) {
      expect(sampleCpu()).toBeUndefined();
      return;
    }
    const before = sampleCpu() as CpuSample;
    let sink = 0;
    const spun = sampleUntil(
      (now) => now.runtimeMainThread - before.runtimeMainThread >= 0.05,
      () => {
        for (let index = 0; index < 2_000_000; index += 1) sink += Math.sqrt(index);
      },
    );
    expect(sink).toBeGreaterThan(0);
    expect(spun.runtimeMainThread - before.runtimeMainThread).toBeGreaterThanOrEqual(0.05);

    const child = spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' });
    try {
      const childStart = sampleCpu() as CpuSample;
      let seen = childStart;
      const giveUpAt = Date.now() + 30_000;
      while (seen.otherProcesses - childStart.otherProcesses < 0.3 && Date.now() < giveUpAt) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        seen = sampleCpu() as CpuSample;
      }
      const childCpu = seen.otherProcesses - childStart.otherProcesses;
      expect(childCpu).toBeGreaterThanOrEqual(0.3);
      // The child is not DynamoDB Local: only a java descendant is. This worker may still have a
      // DynamoDB Local of an earlier test file, idling on its own ticks, so its share may move a
      // little, never by the child's spinning.
      expect(seen.dynamodbLocal - childStart.dynamodbLocal).toBeLessThan(childCpu / 2);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('counts the CPU of a child process that ended, once it is reaped', async () => {
    if (!existsSync('/proc/self/stat')) return;
    const before = sampleCpu() as CpuSample;
    const child = spawn(
      process.execPath,
      ['-e', 'const end = Date.now() + 400; while (Date.now() < end) {}'],
      {
        stdio: 'ignore',
      },
    );
    await new Promise((resolve) => child.on('exit', resolve));
    // Node reaps the child before it emits 'exit'.
    const after = sampleCpu() as CpuSample;
    expect(after.endedProcesses - before.endedProcesses).toBeGreaterThanOrEqual(0.2);
    expect(after.otherProcesses - before.otherProcesses).toBeLessThan(0.2);
  });
});
