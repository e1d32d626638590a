import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { DomainError, ErrorCode, GATEWAY_CONFIG } from '@lib/core';
import { RetailPrivateChannels, type RetailStreamEvent } from '@lib/retail';
import { z } from 'zod';
import type { GatewayConfig } from '../config/gateway-config.schema.js';

const PositionSchema = z.looseObject({ netPosition: z.union([z.string(), z.number()]) });
const SnapshotSchema = z.looseObject({
  positions: z.record(z.string(), z.unknown()).default({}),
  eof: z.boolean().optional(),
});
/** The SDK's update `{marketSlug, position}`, or the newer docs' `{beforePosition, afterPosition}` (upstream-facts "Retail extras"). */
const UpdateSchema = z.looseObject({ position: z.unknown().optional(), afterPosition: z.unknown().optional() });

/** Per account: net YES position per market slug, whether known, and who waits for that. */
interface AccountBook {
  net: Map<string, number>;
  known: boolean;
  pending?: Map<string, number>;
  waiters: (() => void)[];
  release?: () => void;
}

const netOf = (value: unknown): number | undefined => {
  const position = PositionSchema.safeParse(value).data;
  const net = position === undefined ? Number.NaN : Number(position.netPosition);
  return Number.isFinite(net) ? net : undefined;
};

/**
 * The firm's retail accounts' net positions, from the private position channel the gateway holds (one
 * SUBSCRIPTION_TYPE_POSITION per configured retail account, all markets, held through
 * RetailPrivateChannels like the order channel), for the net-position limit
 * on retail creates, and for the side a close-position trades (the price band, the self-trade policy): no
 * REST read on the order path. A NO holding is a negative YES position, as the exchange's positions
 * count it. Held only while config names a `maxNetPosition`, a `priceBand`, a `maxOrderQty` or a
 * `maxOrderNotional` (a close-position's size), or the self-trade policy is on. Until an account's
 * snapshot came, or after its channel dropped, its position is unknown and `sum` refuses
 * RISK_POSITION_UNKNOWN (fail closed).
 */
@Injectable()
export class RetailPositionBook implements OnModuleInit, OnModuleDestroy {
  private readonly wanted: boolean;
  private readonly accounts: readonly string[];
  private readonly books = new Map<string, AccountBook>();

  constructor(
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
    private readonly channels: RetailPrivateChannels,
  ) {
    this.accounts = (config.environments[config.environment]?.retailAccounts ?? []).map((account) => account.name);
    // The net-position limit sums positions; a close-position's side (price band, self-trade policy) and size (per-order limits) are read from them.
    this.wanted =
      config.risk.crossTeamSelfTrade === 'reject' ||
      config.risk.limits.some(
        (limit) =>
          limit.maxNetPosition !== undefined ||
          limit.priceBand !== undefined ||
          limit.maxOrderQty !== undefined ||
          limit.maxOrderNotional !== undefined,
      );
    if (!this.wanted) return;
    channels.listen('SUBSCRIPTION_TYPE_POSITION', {
      event: (account, event) => {
        const book = this.books.get(account);
        if (book) this.received(book, event);
      },
      gap: (account) => {
        const book = this.books.get(account);
        if (!book) return;
        book.known = false;
        book.pending = undefined;
      },
    });
  }

  onModuleInit(): void {
    if (!this.wanted) return;
    for (const account of this.accounts) this.hold(account);
  }

  onModuleDestroy(): void {
    for (const book of this.books.values()) book.release?.();
    this.books.clear();
  }

  /** Waits up to `waitMs` for the positions of `accounts` to be known (a freshly started instance: the channels' first snapshots). */
  async settle(accounts: readonly string[], waitMs: number): Promise<void> {
    const unknown = accounts.map((account) => this.books.get(account)).filter((book) => book && !book.known);
    if (unknown.length === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const waits = unknown.map((book) => new Promise<void>((resolve) => book!.waiters.push(resolve)));
    await Promise.race([Promise.all(waits), new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs)))]);
    clearTimeout(timer);
  }

  /** The summed net position of `accounts` in the markets `inMarket` accepts, or the refusal while one is not known here. */
  sum(accounts: readonly string[], inMarket: (slug: string) => boolean, path: string): number {
    let total = 0;
    for (const account of accounts) {
      const book = this.books.get(account);
      if (!book?.known) {
        throw new DomainError(
          ErrorCode.RISK_POSITION_UNKNOWN,
          `The net positions of retail account ${account} are not known on this instance (its position channel has not delivered): an order under a net-position limit is refused; nothing was sent.`,
          { extensions: { order: path }, headers: { 'Retry-After': '1' } },
        );
      }
      for (const [slug, net] of book.net) if (inMarket(slug)) total += net;
    }
    return total;
  }

  /**
   * The account's net YES position in one market (0: flat, or never traded there), waiting up to
   * `waitMs` for its first snapshot; undefined while it is not known here (the channel has not
   * delivered, or dropped), or when the account's positions are not held at all.
   */
  async net(account: string, slug: string, waitMs: number): Promise<number | undefined> {
    if (!this.books.has(account)) return undefined;
    await this.settle([account], waitMs);
    const book = this.books.get(account);
    return book?.known ? (book.net.get(slug) ?? 0) : undefined;
  }

  private hold(account: string): void {
    const book: AccountBook = { net: new Map(), known: false, waiters: [] };
    this.books.set(account, book);
    book.release = this.channels.hold(account, 'SUBSCRIPTION_TYPE_POSITION');
  }

  private received(book: AccountBook, event: RetailStreamEvent): void {
    if (event.stream !== 'positions') return;
    if (event.kind === 'snapshot') {
      const snapshot = SnapshotSchema.safeParse(event.data).data;
      if (!snapshot) return;
      book.pending ??= new Map();
      for (const [slug, value] of Object.entries(snapshot.positions)) {
        const net = netOf(value);
        if (net !== undefined) book.pending.set(slug, net);
      }
      if (snapshot.eof === false) return;
      book.net = book.pending;
      book.pending = undefined;
      book.known = true;
      for (const wake of book.waiters.splice(0)) wake();
      return;
    }
    const update = UpdateSchema.safeParse(event.data).data;
    const net = netOf(update?.position ?? update?.afterPosition);
    if (event.marketSlug !== undefined && net !== undefined) book.net.set(event.marketSlug, net);
  }
}
