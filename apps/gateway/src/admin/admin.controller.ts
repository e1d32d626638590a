import { Controller, Get, Inject } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { GATEWAY_CONFIG } from '@lib/core';
import { FanoutHub, type PoolUsage } from '@lib/fanout';
import { type LimitsView, RateLimiter } from '@lib/ratelimit';

import { RequireScopes } from '../common/decorators/auth.decorators.js';
import { type FeedScope, feedScopeOf } from '../common/auth/feed-scope.js';
import type { GatewayConfig } from '../config/gateway-config.schema.js';

export interface ClientView {
  id: string;
  team: string;
  scopes: string[];
  participants: string[];
  retailAccounts: string[];
  firmWide: boolean;
  /** What it reads of the firm-wide feeds (see /me). */
  feedScope: FeedScope;
}

@ApiTags('admin')
@ApiBearerAuth()
@Controller('admin')
@RequireScopes('admin')
export class AdminController {
  constructor(
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    private readonly limiter: RateLimiter,
    private readonly hub: FanoutHub,
  ) {}

  /**
   * Every upstream bucket: capacity, level, refill rate, per-team use over the last minute, and the
   * limiter's mode; and the upstream streams in use, cluster-wide, by kind and by team (`null` while
   * Redis cannot count them).
   */
  @Get('limits')
  async limits(): Promise<LimitsView & { streams: PoolUsage[] | null }> {
    const [view, streams] = await Promise.all([this.limiter.view(), this.hub.streamUsage().catch(() => null)]);
    return { ...view, streams };
  }

  /** The configured clients and what they may do; key hashes are not shown. */
  @Get('clients')
  clients(): { environment: string; teams: string[]; clients: ClientView[] } {
    return {
      environment: this.config.environment,
      teams: this.config.teams.map((t) => t.id),
      clients: this.config.clients.map(({ id, team, scopes, participants, retailAccounts, firmWide }, _, all) => ({
        id,
        team,
        scopes,
        participants,
        retailAccounts,
        firmWide,
        feedScope: feedScopeOf({ firmWide, participants }, all),
      })),
    };
  }
}
