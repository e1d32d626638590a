// Loaded with `node --import` into a process under measurement (bench/orders-processes.ts): over the
// IPC channel its parent opened, `reset` starts a phase (CPU time from now on, a fresh event-loop
// delay histogram) and `read` answers what this process did since: CPU µs (process.cpuUsage, every
// thread) and its event loop's delay. Nothing else runs in the measured process for it.
import { type IntervalHistogram, monitorEventLoopDelay } from 'node:perf_hooks';

export interface ProbeFigures {
  probe: 'figures';
  cpuUs: number;
  eventLoopDelayMs: { p50: number; p99: number; max: number };
}

let cpuFrom = process.cpuUsage();
let delay: IntervalHistogram | undefined;

process.on('message', (message: { probe?: string }) => {
  if (message.probe === 'reset') {
    delay?.disable();
    delay = monitorEventLoopDelay({ resolution: 1 });
    delay.enable();
    cpuFrom = process.cpuUsage();
    process.send?.({ probe: 'reset' });
  } else if (message.probe === 'read') {
    const cpu = process.cpuUsage(cpuFrom);
    delay?.disable();
    const at = (p: number) => (delay ? Number((delay.percentile(p) / 1e6).toFixed(3)) : Number.NaN);
    const figures: ProbeFigures = {
      probe: 'figures',
      cpuUs: cpu.user + cpu.system,
      eventLoopDelayMs: { p50: at(50), p99: at(99), max: delay ? Number((delay.max / 1e6).toFixed(3)) : Number.NaN },
    };
    process.send?.(figures);
  }
});
// The channel alone must not keep a process alive that would otherwise exit.
process.channel?.unref();
