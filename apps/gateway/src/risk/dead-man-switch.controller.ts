import { Controller, Delete, HttpCode, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { z } from 'zod';

import { CurrentClient, RequireScopes } from '../common/decorators/auth.decorators.js';
import type { AuthenticatedClient } from '../common/auth/authenticated-client.js';
import { ZodBody } from '../common/pipes/zod-params.js';
import { DeadManSwitch, MAX_DEAD_MAN_SECONDS } from './dead-man-switch.service.js';

const ArmSchema = z
  .object({ seconds: z.int().min(1).max(MAX_DEAD_MAN_SECONDS) })
  .strict()
  .meta({ examples: [{ seconds: 30 }] });

/** The calling client's dead-man's switch: arm (and re-arm) "cancel all my orders after N seconds", or disarm it. */
@ApiTags('risk')
@ApiBearerAuth()
@Controller('risk/v1/dead-man-switch')
@RequireScopes('write:orders')
export class DeadManSwitchController {
  constructor(private readonly deadMan: DeadManSwitch) {}

  @Post()
  @HttpCode(200)
  arm(
    @CurrentClient() client: AuthenticatedClient,
    @ZodBody(ArmSchema) body: z.infer<typeof ArmSchema>,
  ): Promise<{ firesAt: string }> {
    return this.deadMan.arm(client.id, body.seconds);
  }

  @Delete()
  @HttpCode(204)
  async disarm(@CurrentClient() client: AuthenticatedClient): Promise<void> {
    await this.deadMan.disarm(client.id);
  }
}
