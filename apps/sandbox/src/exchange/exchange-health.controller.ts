import { Controller, Get } from '@nestjs/common';

import { ExchangePublic } from './exchange-auth.decorators.js';
import { ExchangeOperation } from './exchange-operation.decorator.js';

/** spec §4.1: GET /v1/health needs no authentication. */
@Controller('v1/health')
@ExchangePublic()
export class ExchangeHealthController {
  @Get()
  @ExchangeOperation('health', 'public')
  health(): { status: string } {
    return { status: 'SERVING' };
  }
}
