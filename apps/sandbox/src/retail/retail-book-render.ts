import type { Bbo, BookLevel, BookSnapshot, MatchingEngine } from '../engine/index.js';

/** upstream-facts "Retail shapes": prices are Amounts, decimal = price / 10^priceScale. */
export interface Amount {
  value: string;
  currency: 'USD';
}

/** Levels per side in a catalog book: the full book as the retail channel sends it, within reason. */
const BOOK_DEPTH = 1_000;

export function amountOf(px: number, priceScale: number): Amount {
  return { value: (px / 10 ** priceScale).toFixed(priceScale), currency: 'USD' };
}

/** Retail market states carry the MARKET_STATE_ prefix where the exchange says INSTRUMENT_STATE_ (upstream-facts). */
export function marketStateOf(instrumentState: string): string {
  return instrumentState.replace(/^INSTRUMENT_STATE_/, 'MARKET_STATE_');
}

const scaleOf = (engine: MatchingEngine, symbol: string) => Number(engine.instrument(symbol)?.priceScale ?? 2);

/** `GET /v1/markets/{slug}/book`: `{marketSlug, bids, offers, state, stats?, transactTime?}`. */
export function retailBook(engine: MatchingEngine, symbol: string): object {
  const scale = scaleOf(engine, symbol);
  const book: BookSnapshot = engine.book(symbol, BOOK_DEPTH);
  const level = (l: BookLevel) => ({ px: amountOf(l.px, scale), qty: String(l.qty) });
  const { stats } = book;
  const optional = (name: string, px: number | undefined) => (px === undefined ? {} : { [name]: amountOf(px, scale) });
  return {
    marketSlug: symbol,
    bids: book.bids.map(level),
    offers: book.offers.map(level),
    state: marketStateOf(book.state),
    stats: {
      ...optional('lastTradePx', stats.lastTradePx),
      sharesTraded: String(stats.sharesTraded),
      openInterest: String(stats.openInterest),
      ...optional('highPx', stats.highPx),
      ...optional('lowPx', stats.lowPx),
    },
    transactTime: new Date(book.transactTime).toISOString(),
  };
}

/** `GET /v1/markets/{slug}/bbo`: `{marketSlug, bestBid?, bestAsk?, bidDepth?, askDepth?, lastTradePx?, sharesTraded?, openInterest?}`. */
export function retailBbo(engine: MatchingEngine, symbol: string): object {
  const scale = scaleOf(engine, symbol);
  const bbo: Bbo = engine.bbo(symbol);
  return {
    marketSlug: symbol,
    ...(bbo.bestBid ? { bestBid: amountOf(bbo.bestBid.px, scale) } : {}),
    ...(bbo.bestAsk ? { bestAsk: amountOf(bbo.bestAsk.px, scale) } : {}),
    bidDepth: bbo.bidDepth,
    askDepth: bbo.askDepth,
    ...(bbo.lastTradePx === undefined ? {} : { lastTradePx: amountOf(bbo.lastTradePx, scale) }),
    sharesTraded: String(bbo.sharesTraded),
    openInterest: String(bbo.openInterest),
  };
}

/** Best prices in decimal dollars for the market records (0 for an empty side). */
export function bestPrices(engine: MatchingEngine, symbol: string): { bestBid: number; bestAsk: number } {
  const bbo = engine.bbo(symbol);
  const scale = 10 ** scaleOf(engine, symbol);
  return { bestBid: bbo.bestBid ? bbo.bestBid.px / scale : 0, bestAsk: bbo.bestAsk ? bbo.bestAsk.px / scale : 0 };
}
