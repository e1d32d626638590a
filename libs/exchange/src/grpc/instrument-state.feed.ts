import { Inject, Injectable } from '@nestjs/common';
import { ExchangeTokenProvider } from '@lib/auth';
import { Clock, GATEWAY_CONFIG, MetricsRegistry } from '@lib/core';
import type { TopicPolicy } from '@lib/fanout';

import { type InstrumentRecord, type InstrumentsPayload, latestBySymbolPolicy } from './firm-state.messages.js';
import { ResumableFeed, type ResumableFeedSpec } from './resumable-feed.js';
import type { ExchangeConfigView } from '../config/exchange.config.js';

export const EXCHANGE_INSTRUMENT_STATE_TOPIC = 'exchange.instrumentState';

/**
 * Public instrument state (scope read:instruments, no participant): every call starts with the state
 * of every instrument, so the token is kept in memory only and a lost call's fresh state is a resync.
 */
export const INSTRUMENT_STATE_SPEC: ResumableFeedSpec = {
  topic: EXCHANGE_INSTRUMENT_STATE_TOPIC,
  kind: 'instrumentState',
  call: 'CreateInstrumentStateChangeSubscription',
  records: 'instruments',
  key: (instrument) =>
    `${String(instrument.symbol)}:${String(instrument.state)}:${JSON.stringify(instrument.updateTime)}`,
  participant: false,
  snapshotFirst: true,
};

/** Late joiners get every instrument's latest state. */
export const EXCHANGE_INSTRUMENT_STATE_POLICY: TopicPolicy = latestBySymbolPolicy<InstrumentRecord>(
  'instruments',
  (update) => (update as InstrumentsPayload).instruments,
);

/** `exchange.instrumentState` (scope read:instruments): the firm's one instrument-state call (the topic's lease). */
@Injectable()
export class InstrumentStateFeed extends ResumableFeed {
  constructor(
    @Inject(GATEWAY_CONFIG) config: ExchangeConfigView,
    tokens: ExchangeTokenProvider,
    registry: MetricsRegistry,
    clock: Clock,
  ) {
    super(INSTRUMENT_STATE_SPEC, config, tokens, null, registry, clock);
  }
}
