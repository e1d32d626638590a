import { Inject, Injectable, type OnModuleInit, Optional } from '@nestjs/common';
import { type TopicFamily, type TopicPolicy, TopicSourceRegistry } from '@lib/fanout';

import type { StreamKind } from './exchange-stream.metrics.js';
import { DROP_COPY_VIEW, TRADES_VIEW, firmWideFeed } from './firm-feed.view.js';
import {
  EXCHANGE_INSTRUMENT_STATE_POLICY,
  EXCHANGE_INSTRUMENT_STATE_TOPIC,
  InstrumentStateFeed,
} from './instrument-state.feed.js';
import {
  DropCopyFeed,
  EXCHANGE_DROP_COPY_POLICY,
  EXCHANGE_DROP_COPY_TOPIC,
  EXCHANGE_TRADES_TOPIC,
  TradeCaptureFeed,
} from './resumable-feed.js';
import {
  EXCHANGE_MARKET_DATA_POLICY,
  EXCHANGE_MARKET_DATA_PREFIX,
  EXCHANGE_STREAM_POOL,
  MarketDataStreams,
} from './market-data-streams.service.js';
import { EXCHANGE_ORDERS_POLICY, EXCHANGE_ORDERS_PREFIX, OrderUpdates } from './order-updates.service.js';
import { EXCHANGE_POSITIONS_POLICY, EXCHANGE_POSITIONS_PREFIX, PositionChanges } from './position-changes.service.js';

export interface ExchangeTopicSources {
  marketData: MarketDataStreams;
  orders: OrderUpdates;
  dropCopy: DropCopyFeed;
  trades: TradeCaptureFeed;
  positions: PositionChanges;
  instrumentState: InstrumentStateFeed;
}

/** An exchange participant, `firms/<firm>/users/<user>` (spec 5.1.4): a client reads only those it is allowed. */
const PARTICIPANT = 'firms/[A-Za-z0-9._-]{1,64}/users/[A-Za-z0-9._-]{1,64}';

/**
 * A family whose topics hold upstream streams: each open topic claims one of the firm's streams
 * (the `exchange` pool) with its kind. Exact for the firm-wide topics (drop copy, trades,
 * instrument state: one leader-held call each). Conservative for `exchange.orders.<participant>`
 * and `exchange.positions.<participant>`: their participants share one call per holding instance,
 * so the pool counts at least as many streams as are open (one per participant topic), never fewer.
 */
function claimingStreams(policy: TopicPolicy, kind: StreamKind): TopicPolicy {
  return { ...policy, capacity: { pool: EXCHANGE_STREAM_POOL, kind } };
}

/**
 * The exchange topic families, one declaration each, keyed by the stream client that sources them:
 * market data (conflated, spends the symbols pool: its streams are the pool's reserve), the others
 * account-policy topics claiming streams; the firm-wide ones (drop copy, trades) narrowed to what each
 * client holds (firm-feed.view.ts).
 */
export const EXCHANGE_TOPIC_FAMILIES: { readonly [K in keyof ExchangeTopicSources]: TopicFamily } = {
  marketData: {
    syntax: `${EXCHANGE_MARKET_DATA_PREFIX}<symbol>`,
    scope: 'read:marketdata',
    account: false,
    policy: EXCHANGE_MARKET_DATA_POLICY,
    description:
      'the full book per frame; after a lost upstream stream every topic gets a resync. ' +
      'A symbol the exchange does not list is refused with unknown_topic (it never reaches the shared stream).',
  },
  orders: {
    syntax: `${EXCHANGE_ORDERS_PREFIX}<participant>`,
    scope: 'read:orders',
    account: false,
    placeholders: { participant: PARTICIPANT },
    policy: claimingStreams(EXCHANGE_ORDERS_POLICY, 'orders'),
    description:
      'only participants the client is allowed: snapshot {orders: working orders}, then one update per {execution} or {cancelReject}; ' +
      'an account topic, never conflated or dropped; a resync after a lost upstream stream.',
  },
  dropCopy: {
    syntax: EXCHANGE_DROP_COPY_TOPIC,
    scope: 'read:dropcopy',
    account: false,
    policy: claimingStreams(firmWideFeed(EXCHANGE_DROP_COPY_POLICY, DROP_COPY_VIEW), 'dropCopy'),
    description:
      "the firm's executions, deduplicated, one update {executions} per upstream batch; " +
      'subscribe with resumeFrom 0 for every batch since the stream opened; restarts and takeovers resume from the stored token (no resync); ' +
      "a token the exchange refuses (it restarted empty) resumes from the last checkpoint's time, else live with a resync. " +
      'Firm-wide: a client that holds only some participants (GET /me: feedScope participants) gets every frame with the same seq, ' +
      "holding only its participants' executions; feedScope firm (every participant held, or the firmWide grant) gets them whole.",
  },
  trades: {
    syntax: EXCHANGE_TRADES_TOPIC,
    scope: 'read:dropcopy',
    account: false,
    policy: claimingStreams(firmWideFeed(EXCHANGE_DROP_COPY_POLICY, TRADES_VIEW), 'trades'),
    description:
      'trade capture reports the same way as exchange.dropcopy, one update {tradeCaptureReports} per batch, a later state of a trade passed on. ' +
      'Firm-wide: a client that holds only some participants gets every frame with the same seq, ' +
      'holding of a trade its own side whole and the other side without identity (no ids, account or participant); feedScope firm gets them whole.',
  },
  // Position changes come from the drop-copy service (DropCopyAPI, scope read:dropcopy upstream).
  positions: {
    syntax: `${EXCHANGE_POSITIONS_PREFIX}<participant>`,
    scope: 'read:dropcopy',
    account: false,
    placeholders: { participant: PARTICIPANT },
    policy: claimingStreams(EXCHANGE_POSITIONS_POLICY, 'positions'),
    description:
      "only participants the client is allowed: snapshot {positions: latest position per symbol, folded from the exchange's retained position changes}, " +
      'then one update {positionChanges} per upstream batch; never conflated or dropped.',
  },
  instrumentState: {
    syntax: EXCHANGE_INSTRUMENT_STATE_TOPIC,
    scope: 'read:instruments',
    account: false,
    policy: claimingStreams(EXCHANGE_INSTRUMENT_STATE_POLICY, 'instrumentState'),
    description:
      "snapshot {instruments: every instrument's current state}, then one update {instruments} per change; a resync with the current state after a lost upstream stream.",
  },
};

/** Declares the exchange topic families with the hub at start, each routed to its stream client. */
@Injectable()
export class ExchangeTopics implements OnModuleInit {
  private readonly sources: ExchangeTopicSources;

  constructor(
    @Optional() @Inject(TopicSourceRegistry) private readonly registry: TopicSourceRegistry | null,
    marketData: MarketDataStreams,
    orders: OrderUpdates,
    dropCopy: DropCopyFeed,
    trades: TradeCaptureFeed,
    positions: PositionChanges,
    instrumentState: InstrumentStateFeed,
  ) {
    this.sources = { marketData, orders, dropCopy, trades, positions, instrumentState };
  }

  onModuleInit(): void {
    for (const key of Object.keys(EXCHANGE_TOPIC_FAMILIES) as (keyof ExchangeTopicSources)[])
      this.registry?.add(EXCHANGE_TOPIC_FAMILIES[key], this.sources[key]);
  }
}
