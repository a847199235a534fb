/**
 * Whether a process id names a running process: what leaves a lock or a scratch directory to its
 * owner, or lets another process take it over once the owner is gone.
 */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
