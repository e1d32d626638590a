// Upstream credential costs on one core: Ed25519 signing with @noble/ed25519 against node:crypto (same
// run, same messages), the full RetailSigner.sign(), and the exchange token's cached path against an
// empty async function. Targets: signing ≥ 5,000 signatures/s; cached token path < 5 µs per request.
import { Logger } from '@nestjs/common';
import { MetricsRegistry, SystemClock } from '@lib/core';

import { type Ed25519Sign, signWithNodeCrypto, signWithNoble } from '../libs/auth/src/retail-signing/ed25519.js';
import { RetailSigner } from '../libs/auth/src/retail-signing/retail-signer.service.js';
import { EXCHANGE, TokenHarness } from '../libs/auth/src/testing/token-harness.js';

const SIGN_SECONDS = 1.5;
const TOKEN_CALLS = 1_000_000;

/** Operations per second of `op` over about `seconds`, after a warm-up. */
function rate(op: (i: number) => unknown, seconds: number): number {
  for (let i = 0; i < 500; i++) op(i);
  const deadline = process.hrtime.bigint() + BigInt(Math.round(seconds * 1e9));
  const start = process.hrtime.bigint();
  let n = 0;
  while (process.hrtime.bigint() < deadline) {
    for (let j = 0; j < 100; j++) op(n++);
  }
  return Math.round(n / (Number(process.hrtime.bigint() - start) / 1e9));
}

/** Nanoseconds per awaited call of `op`. */
async function nsPerAwait(op: () => Promise<unknown>, calls: number): Promise<number> {
  for (let i = 0; i < 10_000; i++) await op();
  const start = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) await op();
  return Number(process.hrtime.bigint() - start) / calls;
}

export async function run(): Promise<Record<string, unknown>> {
  Logger.overrideLogger(false);
  const clock = new SystemClock();
  const harness = new TokenHarness(clock);
  const tokens = await harness.build();
  const { binding, config, server, store } = harness;
  try {
    const key = store.retail('main')!.key;
    const messages = Array.from({ length: 256 }, (_, i) =>
      Buffer.from(`${1_800_000_000_000 + i}POST/v1/order/${i}/cancel`, 'utf8'),
    );
    const signRate = (sign: Ed25519Sign): number => rate((i) => sign(key, messages[i & 255]), SIGN_SECONDS);
    const identical = messages.every((m) =>
      Buffer.from(signWithNoble(key, m)).equals(Buffer.from(signWithNodeCrypto(key, m))),
    );
    const noble = signRate(signWithNoble);
    const nodeCrypto = signRate(signWithNodeCrypto);
    const signer = new RetailSigner(config, binding, store, new MetricsRegistry(), clock);
    const retail = `${binding.environment.retailUrl}/v1/portfolio/activities?limit=10`;
    const signerRate = rate(() => signer.sign('main', 'GET', retail), SIGN_SECONDS);

    const target = `${EXCHANGE}/v1/trading/orders`;
    await tokens.authorization(target);
    const empty = async (): Promise<string> => 'Bearer x';
    const baselineNs = await nsPerAwait(empty, TOKEN_CALLS);
    const cachedNs = await nsPerAwait(() => tokens.authorization(target), TOKEN_CALLS);
    const tokenRequests = server.requests.length;

    return {
      ed25519: {
        identicalSignatures: identical,
        nobleSignaturesPerSecond: noble,
        nodeCryptoSignaturesPerSecond: nodeCrypto,
        nodeCryptoOverNoble: Number((nodeCrypto / noble).toFixed(2)),
        used: nodeCrypto >= noble ? 'node:crypto' : '@noble/ed25519',
      },
      retailSignerSignPerSecond: signerRate,
      exchangeTokenCachedPath: {
        calls: TOKEN_CALLS,
        nsPerCall: Math.round(cachedNs),
        emptyAsyncBaselineNsPerCall: Math.round(baselineNs),
        overheadNsPerCall: Math.round(cachedNs - baselineNs),
        tokenRequestsDuringRun: tokenRequests,
      },
      targets: {
        signingAtLeast5000PerSecond: signerRate >= 5_000,
        cachedPathUnder5Microseconds: cachedNs < 5_000,
      },
    };
  } finally {
    await harness.close();
  }
}
