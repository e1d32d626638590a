import { Controller, Get } from '@nestjs/common';

import { ExchangePublic } from './exchange-auth.decorators.js';

/** spec §4.1: GET /v1/health needs no authentication. */
@Controller('v1/health')
@ExchangePublic()
export class ExchangeHealthController {
  @Get()
  health(): { status: string } {
    return { status: 'SERVING' };
  }
}
