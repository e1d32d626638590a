import { Controller, Get } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { TopicSourceRegistry } from '@lib/fanout';

import { Public } from '../common/decorators/auth.decorators.js';
import { wsAsyncApiOf } from './ws-asyncapi.js';

/** The AsyncAPI document is not part of the OpenAPI one: it describes a channel, not routes. */
@Public()
@ApiExcludeController()
@Controller('docs/ws')
export class WsDocsController {
  constructor(private readonly declared: TopicSourceRegistry) {}

  /** Built from the families the libs declared at start, so it lists exactly the topics `/ws` admits. */
  @Get()
  document(): ReturnType<typeof wsAsyncApiOf> {
    return wsAsyncApiOf(this.declared.families());
  }
}
