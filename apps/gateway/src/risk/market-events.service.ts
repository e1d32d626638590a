import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { DomainError, ErrorCode, GATEWAY_CONFIG } from '@lib/core';
import { InstrumentDirectory } from '@lib/exchange';
import type { GatewayConfig } from '../config/gateway-config.schema.js';

/**
 * Each market's event, for limits narrowed to an event (`risk.limits[].event`): the exchange instrument's
 * `eventAttributes.eventId`, from the instrument list the gateway keeps (InstrumentDirectory: read through
 * the ordinary budget, at most once a minute, on a miss). A retail market slug is looked up the same way
 * (one namespace on this venue). Looked up only while some limit names an event.
 */
@Injectable()
export class MarketEvents implements OnModuleInit {
  private readonly wanted: boolean;

  constructor(
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
    private readonly directory: InstrumentDirectory,
  ) {
    this.wanted = config.risk.limits.some((limit) => limit.event !== undefined);
  }

  onModuleInit(): void {
    // The list is read once at start, so that the first order does not wait for it.
    if (this.wanted) void this.directory.eventOf('');
  }

  /**
   * The market's event (undefined: none, or no limit names events), or the refusal while the instrument
   * list could not be read (fail closed: a limit narrowed to an event cannot be judged).
   */
  async of(market: string | undefined, path: string): Promise<string | undefined> {
    if (!this.wanted || market === undefined) return undefined;
    const event = await this.directory.eventOf(market);
    if (event === undefined) {
      throw new DomainError(
        ErrorCode.RISK_EVENT_UNKNOWN,
        `The event of ${market.slice(0, 100)} is not known (the instrument list could not be read): a limit narrowed to an event cannot be judged; nothing was sent.`,
        {
          extensions: { market: market.slice(0, 100), order: path },
          headers: { 'Retry-After': '5' },
        },
      );
    }
    return event ?? undefined;
  }

  /** The event of a symbol the list holds now, without a read (a position's market): undefined when not known. */
  held(symbol: string): string | undefined {
    return this.wanted ? (this.directory.heldEventOf(symbol) ?? undefined) : undefined;
  }
}
