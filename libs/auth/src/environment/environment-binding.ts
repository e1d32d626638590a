import { Inject, Injectable } from '@nestjs/common';
import { DomainError, type EnvironmentName, ErrorCode, GATEWAY_CONFIG } from '@lib/core';

import type { AuthConfigView, EnvironmentConfig } from '../config/auth.config.js';
import { OriginMatcher } from './origin-matcher.js';

/** A credential of one environment was about to leave for an address that is not that environment's. */
export class CredentialTargetError extends DomainError {
  constructor(credential: string, target: string) {
    super(
      ErrorCode.INTERNAL,
      `Refusing to attach the ${credential} to a request for ${OriginMatcher.describe(target)}.`,
    );
  }
}

/**
 * The one running environment (spec §1.4, §9.2: credentials of one do not work in another) and the
 * addresses each of its credentials may be sent to. Chosen once at start; nothing else is loaded.
 */
@Injectable()
export class EnvironmentBinding {
  readonly name: EnvironmentName;
  readonly environment: EnvironmentConfig;
  /** spec §5.1: the token endpoint, also the `aud` of every client assertion. */
  readonly tokenUrl: string;
  /** Exchange REST origin and the gRPC target: where a bearer token may go. */
  readonly exchangeTargets: OriginMatcher;
  /** Retail origin over http(s) and the ws(s) origin of the same host and port: where a signature may go. */
  readonly retailTargets: OriginMatcher;

  constructor(@Inject(GATEWAY_CONFIG) config: Pick<AuthConfigView, 'environment' | 'environments'>) {
    const environment = config.environments[config.environment];
    if (environment === undefined) throw new Error(`The running environment "${config.environment}" has no addresses.`);
    this.name = config.environment;
    this.environment = environment;
    this.tokenUrl = `${environment.authUrl.replace(/\/+$/, '')}/oauth/token`;
    const grpcOrigin = new URL(`${environment.grpcTls ? 'https' : 'http'}://${environment.grpcTarget}`).origin;
    this.exchangeTargets = new OriginMatcher(
      [new URL(environment.exchangeUrl).origin, grpcOrigin],
      [environment.grpcTarget],
    );
    const retail = new URL(environment.retailUrl);
    const ws = new URL(retail.href);
    ws.protocol = retail.protocol === 'https:' ? 'wss:' : 'ws:';
    this.retailTargets = new OriginMatcher([retail.origin, ws.origin]);
  }

  assertExchangeTarget(target: string): void {
    if (!this.exchangeTargets.matches(target)) throw new CredentialTargetError(`${this.name} exchange token`, target);
  }

  /** Returns where the path of `target` starts, so a signer can take it without parsing the URL again. */
  assertRetailTarget(target: string): number {
    const at = this.retailTargets.match(target);
    if (at < 0) throw new CredentialTargetError(`${this.name} retail signature`, target);
    return at;
  }
}
