import type { ChildProcess } from 'node:child_process';

/** SIGKILLs a child process (a Redis server, a busy loop) and resolves once it has exited. */
export function killed(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}
