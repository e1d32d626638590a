import type { InstrumentState } from './engine.enums.js';
import type { DateObject, Instrument, TradingScheduleEntry } from './instrument.types.js';

/** One game's winner contract: "does the home team win?", paying 100 price units ($1) on yes. */
export interface BinaryContractSpec {
  league: string;
  away: string;
  home: string;
  /** Game day, YYYY-MM-DD. */
  date: string;
  state?: InstrumentState;
  /** The event the contract belongs to; default its own game (`league-away-home-date`). */
  eventId?: string;
}

const DAY_MS = 86_400_000;

/** Every contract prices in cents: priceScale 2, tick 1, band 1..99 (a binary never trades at 0 or 100). */
export function binaryContract(spec: BinaryContractSpec): Instrument {
  const { league, away, home, date } = spec;
  const gameDay = Date.parse(`${date}T00:00:00Z`);
  const game = `${league}-${away}-${home}-${date}`;
  const eventId = spec.eventId ?? game;
  const [awayName, homeName] = [away.toUpperCase(), home.toUpperCase()];
  const listed = gameDay - 14 * DAY_MS;
  return {
    symbol: `aec-${game}`,
    description: `${league.toUpperCase()} ${awayName} @ ${homeName} on ${date}: ${homeName} to win`,
    clearingHouse: 'SANDBOX-CLEARING',
    productId: `aec-${league}`,
    baseCurrency: 'USD',
    settlementCurrency: 'USD',
    priceScale: '2',
    settlementPriceScale: '2',
    fractionalQtyScale: '0',
    minimumTradeQty: '1',
    minimumUnaffiliatedFirms: '0',
    tradeSettlementPeriod: '0',
    jsonAttributes: JSON.stringify({ league, eventId, away, home }),
    tickSize: 1,
    multiplier: 1,
    nonTradable: false,
    state: spec.state ?? 'INSTRUMENT_STATE_OPEN',
    startDate: dateObject(listed),
    expirationDate: dateObject(gameDay + DAY_MS),
    terminationDate: dateObject(gameDay + 7 * DAY_MS),
    expirationTime: { hours: 12, minutes: 0, seconds: 0 },
    createTime: listed,
    updateTime: listed,
    metadata: { league, eventSlug: eventId, away, home },
    tradingSchedule: structuredClone(SCHEDULE),
    priceLimit: {
      low: 1,
      high: 99,
      lowSet: true,
      highSet: true,
      relativeLow: 0,
      relativeHigh: 0,
      relativeLowSet: false,
      relativeHighSet: false,
    },
    orderSizeLimit: {
      low: 1,
      high: 100_000,
      lowSet: true,
      highSet: true,
      totalNotionalLow: 0,
      totalNotionalHigh: 5_000_000,
      totalNotionalLowSet: false,
      totalNotionalHighSet: true,
    },
    eventAttributes: {
      question: `Will ${homeName} beat ${awayName} on ${date}?`,
      payoutValue: '100',
      eventDisplayName: `${awayName} @ ${homeName}`,
      eventId,
      strikeValue: '',
      evaluationType: 'WINNER',
      strikeUnit: '',
      calculationMethod: 'OFFICIAL_RESULT',
      timeSpecifier: date,
      positionAccountabilityValue: '25000',
    },
  };
}

/** Every day: a half-hour pre-open at 13:00 UTC, then open until 13:00 the next day (Sunday=0). */
const EVERY_DAY = [0, 1, 2, 3, 4, 5, 6];
const SCHEDULE: TradingScheduleEntry[] = [
  {
    daysOfWeek: EVERY_DAY,
    timeOfDay: { hours: 13, minutes: 0, seconds: 0 },
    duration: '1800s',
    state: 'INSTRUMENT_STATE_PREOPEN',
    hideMarketData: false,
    expireAllOrders: false,
  },
  {
    daysOfWeek: EVERY_DAY,
    timeOfDay: { hours: 13, minutes: 30, seconds: 0 },
    duration: '84600s',
    state: 'INSTRUMENT_STATE_OPEN',
    hideMarketData: false,
    expireAllOrders: false,
  },
];

function dateObject(ms: number): DateObject {
  const date = new Date(ms);
  return { year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate() };
}

type Row = [league: string, away: string, home: string, date: string, state?: InstrumentState];

/** Mostly OPEN; one or two of every other state so each rule of spec 3.2 has an instrument to try. */
const GAMES: Row[] = [
  ['nfl', 'buf', 'kc', '2026-11-22'],
  ['nfl', 'dal', 'phi', '2026-11-22'],
  ['nfl', 'sf', 'sea', '2026-11-22'],
  ['nfl', 'gb', 'chi', '2026-11-22'],
  ['nfl', 'bal', 'pit', '2026-11-22'],
  ['nfl', 'mia', 'nyj', '2026-11-22'],
  ['nfl', 'det', 'min', '2026-11-22'],
  ['nfl', 'cin', 'cle', '2026-11-22', 'INSTRUMENT_STATE_SUSPENDED'],
  ['nfl', 'nyg', 'dal', '2026-11-26'],
  ['nfl', 'chi', 'det', '2026-11-26'],
  ['nfl', 'kc', 'lv', '2026-11-29', 'INSTRUMENT_STATE_PREOPEN'],
  ['nfl', 'phi', 'was', '2026-11-29', 'INSTRUMENT_STATE_PENDING'],
  ['nba', 'bos', 'nyk', '2026-11-20', 'INSTRUMENT_STATE_EXPIRED'],
  ['nba', 'lal', 'gsw', '2026-11-21'],
  ['nba', 'mil', 'phi', '2026-11-21'],
  ['nba', 'den', 'phx', '2026-11-22'],
  ['nba', 'mia', 'orl', '2026-11-22', 'INSTRUMENT_STATE_HALTED'],
  ['nba', 'dal', 'sas', '2026-11-24', 'INSTRUMENT_STATE_PREOPEN'],
  ['nba', 'okc', 'min', '2026-11-24'],
  ['nba', 'cle', 'ind', '2026-11-25'],
  ['nhl', 'tor', 'mtl', '2026-11-21'],
  ['nhl', 'nyr', 'bos', '2026-11-22'],
  ['nhl', 'edm', 'cgy', '2026-11-22', 'INSTRUMENT_STATE_MATCH_AND_CLOSE_AUCTION'],
  ['nhl', 'vgk', 'col', '2026-11-24'],
  ['nhl', 'fla', 'tbl', '2026-11-19', 'INSTRUMENT_STATE_TERMINATED'],
  ['ncaaf', 'osu', 'mich', '2026-11-28'],
  ['ncaaf', 'bama', 'aub', '2026-11-28'],
  ['ncaaf', 'uga', 'gt', '2026-11-28', 'INSTRUMENT_STATE_CLOSED'],
  ['epl', 'ars', 'tot', '2026-11-21'],
  ['epl', 'liv', 'mci', '2026-11-22'],
  ['epl', 'che', 'mun', '2026-11-22', 'INSTRUMENT_STATE_CLOSED'],
  ['epl', 'new', 'avl', '2026-11-28', 'INSTRUMENT_STATE_PENDING'],
];

/** A fresh copy each call, since the engine changes instrument state as it runs. */
export function instrumentsFixture(): Instrument[] {
  return GAMES.map(([league, away, home, date, state]) => binaryContract({ league, away, home, date, state }));
}
