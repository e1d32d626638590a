import { Controller, Get } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';

import { Public } from '../common/decorators/auth.decorators.js';
import { WS_ASYNCAPI } from './ws-asyncapi.js';

/** The AsyncAPI document is not part of the OpenAPI one: it describes a channel, not routes. */
@Public()
@ApiExcludeController()
@Controller('docs/ws')
export class WsDocsController {
  @Get()
  document(): typeof WS_ASYNCAPI {
    return WS_ASYNCAPI;
  }
}
