import { type DynamicModule, Module } from '@nestjs/common';

import { AuthHealthController } from './auth-health.controller.js';

/** The sandbox's auth surface, served on its own port. */
@Module({})
export class AuthSurfaceModule {
  static forRoot(): DynamicModule {
    return {
      controllers: [AuthHealthController],
      module: AuthSurfaceModule,
    };
  }
}
