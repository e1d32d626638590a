import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';

import { SurfaceError } from '../shared/surface-error.js';
import { RETAIL_PUBLIC } from './retail-auth.decorators.js';
import { RETAIL_SIGNATURE, type RetailSignatureParts, verifyRetailSignature } from './retail-signature.js';

/** Global on the retail surface: every route must carry a valid X-PM-* signature unless marked public. */
@Injectable()
export class RetailSignatureGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    @Inject(RETAIL_SIGNATURE) private readonly signature: RetailSignatureParts,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    if (this.reflector.getAllAndOverride<boolean>(RETAIL_PUBLIC, [context.getHandler(), context.getClass()]))
      return true;
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const result = verifyRetailSignature(this.signature, request.method, request.url, request.headers);
    if (!result.ok) throw new SurfaceError(401, result.message);
    request.retailKey = result.key;
    return true;
  }
}
