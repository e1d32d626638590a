import type { EventEntry, GameState } from '../fixture/catalog-model.js';
import { type LivePrices, type Variant, listingTag, renderMarket } from './market-render.js';

export type { Variant };

/** The all-events listing has no baseballState in its game states (spec 2.13). */
function listedGameState(state: GameState): object {
  const { baseballState: _baseball, ...rest } = state;
  return rest;
}

/**
 * An event in the form of the route serving it (spec 2.13): the all-events listing adds eventWeek
 * and gameStatus and trims tags, markets and game states; the league and series listings give each
 * tag its league, sport and parentId; by id, by slug and search give the plain record.
 */
export function renderEvent(entry: EventEntry, variant: Variant, live: LivePrices): object {
  const { event } = entry;
  const markets = event.markets.map((m) => renderMarket(m, variant, live));
  switch (variant) {
    case 'listing':
      return {
        ...event,
        markets,
        tags: event.tags.map(listingTag),
        eventState: listedGameState(event.eventState),
        metadata: {
          gameState: listedGameState(event.metadata.gameState),
          latestGameUpdate: event.metadata.latestGameUpdate,
        },
        eventWeek: entry.eventWeek,
        gameStatus: entry.gameStatus,
      };
    case 'section': {
      const sport = entry.tags.find((t) => t.sport)?.sport;
      const tags = entry.tags.map(({ tag, parentId }) => ({ ...tag, league: entry.league, sport, parentId }));
      return { ...event, markets, tags };
    }
    case 'detail':
      return { ...event, markets };
  }
}
