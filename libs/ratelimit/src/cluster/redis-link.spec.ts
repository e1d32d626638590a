import type { RedisBudgetStore } from '../store/redis-budget.store.js';
import { RedisLink } from './redis-link.js';

const timeout = () => new Error('Command timed out');
const options = {
  instanceId: 'i1',
  heartbeatMs: 1_000,
  probeMs: 1_000,
  instanceTtlMs: 3_000,
  staleReserveMs: 60_000,
  expectedInstances: 3,
  degradeAfterTimeouts: 3,
};
const quiet = { log: () => undefined, warn: () => undefined };

function link() {
  // The link only reaches the store from its heartbeat, which these cases never start.
  const store = {} as unknown as RedisBudgetStore;
  return new RedisLink(
    store,
    options,
    () => '{}',
    () => undefined,
    quiet,
  );
}

describe(RedisLink.name, () => {
  it('assumes the configured fleet before it has counted its peers: never alone', () => {
    expect(link().localShareOf).toBe(3);
  });

  it('goes local only after degradeAfterTimeouts timeouts in a row; an answer in time resets the count', () => {
    const sut = link();
    sut.failed(timeout());
    sut.failed(timeout());
    sut.succeeded();
    sut.failed(timeout());
    sut.failed(timeout());
    expect(sut.degraded).toBe(false);
    sut.failed(timeout());
    expect(sut.degraded).toBe(true);
    // Cut off alone (Redis still answers the others): its local cells stay spent until they reserved its share.
    expect(sut.holdMs).toBe(options.instanceTtlMs + options.heartbeatMs);
  });

  it('counts the calls one stall timed out together once: a starved event loop is not three timeouts in a row', () => {
    const sut = link();
    const sentAt = performance.now() - 600; // all under way when the stall began
    for (let i = 0; i < 10; i++) sut.failed(timeout(), sentAt);
    expect(sut.degraded).toBe(false);
    sut.failed(timeout());
    sut.failed(timeout());
    expect(sut.degraded).toBe(true); // sent after the last timeout was seen: new stalls
  });

  it('goes local at once when Redis refuses the connection (nothing can have run there)', () => {
    const sut = link();
    sut.failed(new Error("Stream isn't writeable and enableOfflineQueue options is false"));
    expect(sut.degraded).toBe(true);
    expect(sut.holdMs).toBe(0); // Redis down for all: nobody spends on it meanwhile
  });

  it('comes back only after probes answer in a row: a failed probe between two answers starts the count again', async () => {
    const answers: boolean[] = [];
    const store = {
      heartbeat: () =>
        answers.shift() ? Promise.resolve({ known: 1, fresh: [] }) : Promise.reject(new Error('Connection is closed.')),
      reserveStale: () => undefined,
    } as unknown as RedisBudgetStore;
    const sut = new RedisLink(
      store,
      options,
      () => '{}',
      () => undefined,
      quiet,
    );
    // The heartbeat is the probe; the link was never started, so it schedules none by itself.
    const probe = () => (sut as unknown as { beat(): Promise<void> }).beat();
    sut.failed(new Error('Connection is closed.'));
    answers.push(true, false, true);
    await probe();
    await probe();
    await probe();
    expect(sut.degraded).toBe(true);
    answers.push(true);
    await probe();
    expect(sut.degraded).toBe(false);
  });
});
