import { Inject, Injectable } from '@nestjs/common';
import { GATEWAY_CONFIG, type GatewayConfig } from '@lib/core';
import { type AccountCallerContext, ExchangeAccounts, type OrderRequest } from '@lib/exchange';
import { z } from 'zod';

import type { AuthenticatedClient } from '../common/auth/authenticated-client.js';
import { MICROS } from './open-orders.service.js';
import type { OpenOrderCount, OrderExposure } from './open-orders.store.js';
import { exchangeOrderTerms } from './order-terms.js';
import { RiskGate } from './risk-gate.service.js';
import type { ExposureCount } from './risk-limits.js';

const PositionsSchema = z.looseObject({ positions: z.array(z.looseObject({ symbol: z.string(), netPosition: z.string() })).default([]) });

const matches = (pattern: string, symbol: string) => (pattern.endsWith('*') ? symbol.startsWith(pattern.slice(0, -1)) : symbol === pattern);

/** Reads each participant's positions once per request (a batch's children share the read). */
export type PositionReader = (participant: string) => Promise<ReadonlyMap<string, number>>;

/**
 * Open notional and net position (issue 26 item 1): what an exchange insert adds to the exposure counts,
 * and the counts it falls under, each position count carrying the scope's current net position: the sum
 * over the participants the scope's clients use (firm: every configured participant) of their net
 * positions in the count's markets, read from the exchange's /v1/positions (no budget) at the time.
 */
@Injectable()
export class Exposure {
  private readonly scale: number;
  private readonly participants = new Map<string, readonly string[]>();

  constructor(
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
    private readonly gate: RiskGate,
    private readonly accounts: ExchangeAccounts,
  ) {
    this.scale = config.risk.exchangePriceScale;
    const add = (scope: string, participant: string) => this.participants.set(scope, [...new Set([...(this.participants.get(scope) ?? []), participant])]);
    for (const client of config.clients) {
      for (const participant of client.participants) for (const scope of ['firm', `team:${client.team}`, `client:${client.id}`]) add(scope, participant);
    }
  }

  /** What the order adds: its side, contracts (a cash order: its amount at the lowest tick, the most it could buy) and worst-case notional. */
  of(order: OrderRequest): OrderExposure {
    const terms = exchangeOrderTerms(order, this.scale);
    const notional = terms.notional ?? 0;
    const qty = terms.qty ?? Math.ceil(notional * 10 ** this.scale);
    return { side: terms.side ?? 'buy', qty, micros: Math.round(notional * MICROS) };
  }

  /** The exposure counts the order falls under, positions read (once per participant through `read`). */
  async counts(client: AuthenticatedClient, order: OrderRequest, read: PositionReader): Promise<OpenOrderCount[]> {
    const counts = this.gate.limits.exposureCounts(client, order.symbol);
    return Promise.all(counts.map(async (count) => (count.kind === 'position' ? { ...count, position: await this.position(count, read) } : count)));
  }

  /** A reader for one request: each participant's positions read at most once. */
  reader(caller: AccountCallerContext): PositionReader {
    const reads = new Map<string, Promise<ReadonlyMap<string, number>>>();
    return (participant) => {
      if (!reads.has(participant)) {
        const read = this.accounts.positions({ ...caller, participant }).then((reply) => new Map(PositionsSchema.parse(JSON.parse(reply.text)).positions.map((p) => [p.symbol, Number(p.netPosition)])));
        reads.set(participant, read);
      }
      return reads.get(participant)!;
    };
  }

  private async position(count: ExposureCount, read: PositionReader): Promise<number> {
    let sum = 0;
    for (const participant of this.participants.get(count.scope) ?? []) {
      for (const [symbol, net] of await read(participant)) if (matches(count.market!, symbol) && Number.isFinite(net)) sum += net;
    }
    return sum;
  }
}
