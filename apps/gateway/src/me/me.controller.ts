import { Controller, Get } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';

import { CurrentClient } from '../common/decorators/auth.decorators.js';
import type { AuthenticatedClient } from '../common/auth/authenticated-client.js';
import type { FeedScope } from '../common/auth/feed-scope.js';

export interface MeResponse {
  id: string;
  team: string;
  scopes: string[];
  participants: readonly string[];
  retailAccounts: readonly string[];
  /** The config's explicit grant to read the firm-wide feeds whole. */
  firmWide: boolean;
  /** What it reads of `exchange.dropcopy` and `exchange.trades`: the whole firm, or its participants' records. */
  feedScope: FeedScope;
}

@ApiTags('clients')
@ApiBearerAuth()
@Controller('me')
export class MeController {
  /** Who the caller is, as the gateway sees them; dashboards show it. */
  @Get()
  me(@CurrentClient() client: AuthenticatedClient): MeResponse {
    return {
      id: client.id,
      team: client.team,
      scopes: [...client.scopes],
      participants: client.participants,
      retailAccounts: client.retailAccounts,
      firmWide: client.firmWide,
      feedScope: client.feedScope,
    };
  }
}
