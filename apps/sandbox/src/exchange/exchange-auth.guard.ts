import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { status as GrpcStatus } from '@grpc/grpc-js';
import type { FastifyRequest } from 'fastify';

import type { UpstreamScope } from '../config/sandbox-config.schema.js';
import { singleHeader } from '../shared/single-header.js';
import { SurfaceError } from '../shared/surface-error.js';
import { ACCOUNT_SCOPED, EXCHANGE_PUBLIC, EXCHANGE_SCOPE } from './exchange-auth.decorators.js';
import {
  EXCHANGE_AUTHORIZATION,
  type ExchangeAuthorizationParts,
  authorizeExchangeCall,
} from './exchange-authorization.js';

/** Global on the exchange surface: deny by default, so a route added without a declared scope fails loudly. */
@Injectable()
export class ExchangeAuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    @Inject(EXCHANGE_AUTHORIZATION) private readonly authorization: ExchangeAuthorizationParts,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(EXCHANGE_PUBLIC, targets)) return true;
    const scope = this.reflector.getAllAndOverride<UpstreamScope | undefined>(EXCHANGE_SCOPE, targets);
    if (!scope) throw new Error(`${context.getClass().name}.${context.getHandler().name} declares no exchange scope`);
    const accountScoped = this.reflector.getAllAndOverride<boolean | undefined>(ACCOUNT_SCOPED, targets) ?? false;

    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const credentials = {
      authorization: singleHeader(request.headers.authorization),
      participantId: singleHeader(request.headers['x-participant-id']),
    };
    const result = authorizeExchangeCall(this.authorization, credentials, { scope, accountScoped });
    if (!result.ok) throw new SurfaceError(result.grpcCode === GrpcStatus.UNAUTHENTICATED ? 401 : 403, result.message);
    request.exchangeCaller = result.caller;
    return true;
  }
}
