import { Controller, Get } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';

import { CurrentClient } from '../common/auth.decorators.js';
import type { AuthenticatedClient } from '../common/authenticated-client.js';

export interface MeResponse {
  id: string;
  team: string;
  scopes: string[];
  participants: readonly string[];
  retailAccounts: readonly string[];
}

@ApiTags('clients')
@ApiBearerAuth()
@Controller('me')
export class MeController {
  /** Who the caller is, as the gateway sees them; dashboards show it. */
  @Get()
  me(@CurrentClient() client: AuthenticatedClient): MeResponse {
    return { id: client.id, team: client.team, scopes: [...client.scopes], participants: client.participants, retailAccounts: client.retailAccounts };
  }
}
