import { Logger } from '@nestjs/common';
import { RETAIL_ACCOUNT_NAME } from '@lib/auth';
import type { TopicSink, TopicSource } from '@lib/fanout';

import type { RetailSubscriptionType } from '../schemas/retail-enums.schema.js';
import type { RetailMarketBooks } from './retail-market-books.js';
import type { RetailStreamEvent } from './retail-stream-message.js';
import type { RetailSocket, SubscriptionRequest } from './retail-socket.js';
import type { RetailChannel, RetailStreams } from './retail-streams.service.js';

interface TopicSpec extends SubscriptionRequest {
  channel: RetailChannel;
  /** The account a `retail.account.<account>.…` topic names; none for the default account. */
  account?: string;
}

/** Per-market topic families: `retail.<family>.<slug>`. */
const MARKET_TOPICS: Record<string, RetailSubscriptionType> = {
  marketData: 'SUBSCRIPTION_TYPE_MARKET_DATA',
  marketDataLite: 'SUBSCRIPTION_TYPE_MARKET_DATA_LITE',
  trade: 'SUBSCRIPTION_TYPE_TRADE',
};

const NAMED_ACCOUNT_TOPIC = new RegExp(`^retail\\.account\\.(${RETAIL_ACCOUNT_NAME})\\.(.+)$`);

/**
 * `retail.marketData.<slug>`, `retail.marketDataLite.<slug>`, `retail.trade.<slug>` on the markets
 * channel; `retail.orders[.<slug>]`, `retail.positions`, `retail.balances` on the private channel,
 * of the default account or, after `retail.account.<account>.`, of that account (account names have
 * no dots). An order subscription without markets covers them all (upstream-facts "Retail extras").
 */
export function parseRetailTopic(topic: string): TopicSpec {
  const named = NAMED_ACCOUNT_TOPIC.exec(topic);
  if (named) {
    const spec = parseRetailTopic(`retail.${named[2]}`);
    if (spec.channel !== 'private') throw new Error(`not a retail account topic: ${topic}`);
    return { ...spec, account: named[1] };
  }
  const [root, family, ...rest] = topic.split('.');
  const slug = rest.join('.');
  if (root === 'retail' && Object.hasOwn(MARKET_TOPICS, family) && slug)
    return { channel: 'markets', subscriptionType: MARKET_TOPICS[family], marketSlugs: [slug] };
  if (root === 'retail' && family === 'orders')
    return { channel: 'private', subscriptionType: 'SUBSCRIPTION_TYPE_ORDER', marketSlugs: slug ? [slug] : [] };
  if (root === 'retail' && family === 'positions' && !slug)
    return { channel: 'private', subscriptionType: 'SUBSCRIPTION_TYPE_POSITION' };
  if (root === 'retail' && family === 'balances' && !slug)
    return { channel: 'private', subscriptionType: 'SUBSCRIPTION_TYPE_ACCOUNT_BALANCE' };
  throw new Error(`not a retail topic: ${topic}`);
}

/** What a hub topic carries: the internal stream name and the upstream payload under its upstream key. */
export type RetailTopicPayload = Pick<RetailStreamEvent, 'stream' | 'key' | 'data'>;

/**
 * The fan-out hub's source for retail topics: one upstream subscription per topic, on the socket of
 * the topic's account (the default account unless the topic names one).
 * Snapshot messages become `sink.snapshot`, updates `sink.update`; a dropped connection is `sink.gap`,
 * and the resubscription's snapshot follows on its own.
 */
export class RetailTopicSource implements TopicSource {
  private readonly logger = new Logger(RetailTopicSource.name);
  private readonly opened = new Map<string, { socket: RetailSocket; requestId: string }>();
  /** `retail.marketDataLite.<slug>` topics held through the shared books, by topic: their slug. */
  private readonly shared = new Map<string, string>();

  constructor(
    private readonly streams: RetailStreams,
    private readonly defaultAccount: string,
    /** When given, `retail.marketDataLite.<slug>` rides the subscription the price band reads (one per slug). */
    private readonly books?: RetailMarketBooks,
  ) {}

  async open(topic: string, sink: TopicSink): Promise<void> {
    const { channel, account, ...request } = parseRetailTopic(topic);
    const slug = request.marketSlugs?.[0];
    if (this.books && request.subscriptionType === 'SUBSCRIPTION_TYPE_MARKET_DATA_LITE' && slug) {
      this.shared.set(topic, slug);
      try {
        return await this.books.open(slug, sink);
      } catch (error) {
        this.close(topic);
        throw error;
      }
    }
    const socket = this.streams.socket(account ?? this.defaultAccount, channel);
    const { requestId, ready } = socket.subscribe(request, {
      event: (event) => {
        const payload: RetailTopicPayload = { stream: event.stream, key: event.key, data: event.data };
        if (event.kind === 'snapshot') sink.snapshot(payload);
        else sink.update(payload);
      },
      gap: () => sink.gap(),
      error: (message) => this.logger.warn(`retail topic ${topic}: upstream error ${message}`),
    });
    this.opened.set(topic, { socket, requestId });
    try {
      await ready;
    } catch (error) {
      this.close(topic);
      throw error;
    }
  }

  close(topic: string): void {
    const slug = this.shared.get(topic);
    if (slug !== undefined) {
      this.shared.delete(topic);
      return this.books?.close(slug);
    }
    const opened = this.opened.get(topic);
    if (!opened) return;
    this.opened.delete(topic);
    opened.socket.unsubscribe(opened.requestId);
  }
}
