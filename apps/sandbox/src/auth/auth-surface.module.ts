import { type DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';

import { AuthHealthController } from './auth-health.controller.js';
import { OAuthErrorFilter } from './oauth-error.filter.js';
import { SandboxAdminController } from './sandbox-admin.controller.js';
import { TokenController } from './token.controller.js';
import { TokenService } from './token.service.js';

/** The sandbox's auth surface, served on its own port; it also carries the sandbox's operator routes. */
@Module({})
export class AuthSurfaceModule {
  static forRoot(): DynamicModule {
    return {
      controllers: [AuthHealthController, SandboxAdminController, TokenController],
      module: AuthSurfaceModule,
      providers: [TokenService, { provide: APP_FILTER, useClass: OAuthErrorFilter }],
    };
  }
}
