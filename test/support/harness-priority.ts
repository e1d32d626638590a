import { readdirSync } from 'node:fs';
import { setPriority } from 'node:os';

import { subjectNice } from './redis-server.js';

/**
 * The judge must not be starved by what it judges. A test process holds the sandbox (the upstream's
 * stand-in, whose own sliding windows decide whether a limit was overshot), the load generator and
 * the assertions on one event loop. When the cores are oversubscribed (`npm test` beside busy
 * loops), that process got a sliver of a core: the sandbox read admitted requests seconds late and
 * bunched up (a sliding second showed 44 of a key the gateways had sent at 14/s), answered reads after
 * the gateway's 10 s upstream timeout, and counted bursts no real upstream on its own machine would
 * see. So a test process that starts gateway processes (the subjects) runs its own threads at a
 * higher priority (a lower nice value) from its first spawn to the end of that test file, and starts
 * every subject — gateway processes, Redis servers, busy loops — at the nice value the run was started
 * with (`subjectCommand` in redis-server.ts): the gateways still compete for the cores with the busy
 * loops on equal terms, and that is what the CPU-pressure tests are about. A test file whose gateway
 * runs inside the test process gets no boost: there the gateway would get it too.
 *
 * Raising priority needs CAP_SYS_NICE (root in the CI container); without it nothing changes.
 */
const HARNESS_NICE_BOOST = 10;

/** Lowers the nice value of every thread of this process (Linux keeps nice per thread); idempotent. */
export function raiseHarnessPriority(): void {
  setThreadsNice(Math.max(-20, subjectNice() - HARNESS_NICE_BOOST));
}

/** Back to the run's own nice value: each test file starts there (a jest worker runs many files). */
export function restoreHarnessPriority(): void {
  setThreadsNice(subjectNice());
}

function setThreadsNice(target: number): void {
  let threads: string[];
  try {
    threads = readdirSync('/proc/self/task');
  } catch {
    threads = [String(process.pid)];
  }
  for (const tid of threads) {
    try {
      setPriority(Number(tid), target);
    } catch {
      // no CAP_SYS_NICE (or the thread ended): the run goes on at the usual priority
    }
  }
}
