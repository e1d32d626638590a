// Test only, loaded with `node --import` into a spawned gateway process (spawnGateway's `wallClock`):
// the process's wall clock is off by TEST_WALL_CLOCK_OFFSET_MS from its start, and each SIGUSR2 steps
// it by the next of TEST_WALL_CLOCK_STEPS_MS (a comma list), as NTP or `date -s` stepping the system
// clock would. `Date` moves; the monotonic clock (`performance.now()`) does not, and the time origin it
// counts from carries the offset the process started with, as a real wrong clock's would.
const RealDate = Date;
let offset = Number(process.env.TEST_WALL_CLOCK_OFFSET_MS ?? 0);
const steps = (process.env.TEST_WALL_CLOCK_STEPS_MS ?? '').split(',').filter(Boolean).map(Number);

function WallClockDate(...args) {
  if (!new.target) return new RealDate(RealDate.now() + offset).toString();
  return Reflect.construct(RealDate, args.length === 0 ? [RealDate.now() + offset] : args, new.target);
}
WallClockDate.prototype = RealDate.prototype;
WallClockDate.now = () => RealDate.now() + offset;
WallClockDate.parse = RealDate.parse;
WallClockDate.UTC = RealDate.UTC;
globalThis.Date = WallClockDate;

const origin = performance.timeOrigin + offset;
Object.defineProperty(performance, 'timeOrigin', { get: () => origin, configurable: true });

process.on('SIGUSR2', () => {
  const step = steps.shift() ?? 0;
  offset += step;
  process.stderr.write(`${JSON.stringify({ level: 40, msg: `test wall clock stepped by ${step} ms` })}\n`);
});
