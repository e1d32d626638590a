// CPU time of a process and its children (a PostgreSQL server: the postmaster and the backends it forked),
// read from /proc: Linux only, undefined elsewhere. Clock ticks of 10 ms, so it is read over whole rounds.
import { readFileSync, readdirSync } from 'node:fs';

const TICK_US = 10_000; // USER_HZ is 100 on Linux

/**
 * One process's utime + stime, µs, with its exited and reaped children's (cutime + cstime), and its
 * parent's pid; undefined when it is gone.
 */
function statOf(pid: string): { parent: number; cpuUs: number; reapedUs: number } | undefined {
  try {
    // The command name may hold spaces and parentheses: the fields after it start after the last ')'.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ').pop()!.split(' ');
    return {
      parent: Number(fields[1]),
      cpuUs: (Number(fields[11]) + Number(fields[12])) * TICK_US,
      reapedUs: (Number(fields[13]) + Number(fields[14])) * TICK_US,
    };
  } catch {
    return undefined;
  }
}

/** CPU time so far of `root`, its live children and the children it reaped (backends that exited), µs. */
export function processTreeCpuUs(root: number): number | undefined {
  let names: string[];
  try {
    names = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return undefined;
  }
  let total = 0;
  for (const name of names) {
    const stat = statOf(name);
    if (stat && Number(name) === root) total += stat.cpuUs + stat.reapedUs;
    else if (stat?.parent === root) total += stat.cpuUs;
  }
  return total;
}
