import { type DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';

import { ExchangeClients } from '../shared/exchange-clients.js';
import { FaultBoard } from '../shared/fault-board.js';
import { SandboxClock } from '../shared/sandbox-clock.js';
import { SandboxCounters } from '../shared/sandbox-counters.js';
import { ACCESS_TOKEN_PARTS, type AccessTokenParts } from './access-token.js';
import { AuthHealthController } from './auth-health.controller.js';
import { OAuthErrorFilter } from './oauth-error.filter.js';
import { SandboxAdminController } from './sandbox-admin.controller.js';
import { TokenController } from './token.controller.js';
import { TokenService } from './token.service.js';

/** What the auth surface is handed by the composition root. */
export interface AuthSurfaceParts extends AccessTokenParts {
  readonly clock: SandboxClock;
  readonly counters: SandboxCounters;
  readonly faults: FaultBoard;
  readonly exchangeClients: ExchangeClients;
}

/** The sandbox's auth surface, served on its own port; it also carries the sandbox's operator routes. */
@Module({})
export class AuthSurfaceModule {
  static forRoot(parts: AuthSurfaceParts): DynamicModule {
    const { clock, addresses, tokens, exchangeClients, counters, faults } = parts;
    const accessTokens: AccessTokenParts = { clock, addresses, tokens, exchangeClients };
    return {
      controllers: [AuthHealthController, SandboxAdminController, TokenController],
      module: AuthSurfaceModule,
      providers: [
        TokenService,
        { provide: APP_FILTER, useClass: OAuthErrorFilter },
        { provide: ACCESS_TOKEN_PARTS, useValue: accessTokens },
        { provide: SandboxClock, useValue: clock },
        { provide: SandboxCounters, useValue: counters },
        { provide: FaultBoard, useValue: faults },
        { provide: ExchangeClients, useValue: exchangeClients },
      ],
    };
  }
}
