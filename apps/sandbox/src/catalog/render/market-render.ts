import type { Market, Tag } from '../fixture/catalog-model.js';

/** Best prices of a market's book in decimal dollars (0 when a side is empty). */
export type LivePrices = (symbol: string) => { bestBid: number; bestAsk: number };

export type Variant = 'listing' | 'section' | 'detail';

/** In the all-events listing a tag carries its publishing flags instead of league and sport (spec 2.13). */
export function listingTag(tag: Tag): object {
  return {
    ...tag,
    subtags: tag.subtags.map(listingTag),
    forceShow: false,
    forceHide: false,
    isCarousel: false,
    publishedAt: tag.createdAt,
    createdBy: 1,
    updatedBy: 1,
  };
}

/**
 * A market as one route serves it: best prices from the live book (the slug is the engine symbol);
 * the all-events listing leaves out spreadTotalSuffix and the subject's slug (spec 2.13).
 */
export function renderMarket(market: Market, variant: Variant, live: LivePrices): object {
  const prices = live(market.slug);
  if (variant !== 'listing') return { ...market, ...prices };
  const { spreadTotalSuffix: _suffix, subject, tags, ...rest } = market;
  const { slug: _slug, ...listedSubject } = subject;
  return { ...rest, ...prices, tags: tags.map(listingTag), subject: listedSubject };
}
