import { Inject, Injectable } from '@nestjs/common';

import { publicKeyFingerprint } from '../keys/key-material.js';
import { SandboxCounters } from '../shared/sandbox-counters.js';
import { ACCESS_TOKEN_PARTS, type AccessTokenParts, issueAccessToken } from './access-token.js';
import {
  IAT_LEEWAY_SECONDS,
  MAX_ASSERTION_LIFETIME_SECONDS,
  verifyClientAssertion,
} from './client-assertion.verifier.js';
import { JtiReplayCache } from './jti-replay-cache.js';
import { parseTokenRequest } from './token-request.js';
import { TokenRefusal } from './token-refusal.error.js';

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
}

// An assertion accepted now is dead by now + 305 s (exp ≤ iat + 300, iat ≤ now + 5), so remembering its
// jti a little longer than that catches every replay that could otherwise pass.
const JTI_RETENTION_MS = (MAX_ASSERTION_LIFETIME_SECONDS + IAT_LEEWAY_SECONDS + 5) * 1000;

/** POST /oauth/token: private-key JWT client authentication (spec §5.1, RFC 7523) and token issue. */
@Injectable()
export class TokenService {
  private readonly seenJtis = new JtiReplayCache(JTI_RETENTION_MS);

  constructor(
    @Inject(ACCESS_TOKEN_PARTS) private readonly parts: AccessTokenParts,
    private readonly counters: SandboxCounters,
  ) {}

  grant(contentType: string | undefined, body: unknown): TokenResponse {
    this.counters.count('token.requests');
    try {
      return this.authenticateAndIssue(contentType, body);
    } catch (error) {
      if (error instanceof TokenRefusal) this.counters.count(`token.rejected.${error.reason}`);
      throw error;
    }
  }

  private authenticateAndIssue(contentType: string | undefined, body: unknown): TokenResponse {
    const { urls } = this.parts.addresses;
    const request = parseTokenRequest(contentType, body, urls.exchange);
    const client = this.parts.exchangeClients.get(request.clientId);
    if (!client) throw new TokenRefusal('unknown_client', 'invalid_client', 'client_id is not registered');
    const now = this.parts.clock.now();
    const verdict = verifyClientAssertion(request.clientAssertion, {
      clientId: client.clientId,
      publicKeys: client.publicKeys,
      tokenUrl: `${urls.auth}/oauth/token`,
      nowMs: now,
    });
    if (!verdict.ok) throw new TokenRefusal(verdict.reason, verdict.error, verdict.description);
    // Ids are per issuer (RFC 7519 §4.1.7), and only remembered once the signature proved who sent them.
    if (!this.seenJtis.remember(`${client.clientId}\n${verdict.jti}`, now)) {
      throw new TokenRefusal('replayed_jti', 'invalid_client_assertion', 'jti was already used');
    }
    const token = issueAccessToken(this.parts, client);
    this.counters.count('token.accepted');
    this.counters.count(`token.accepted.client.${client.clientId}`);
    this.counters.count(`token.accepted.fingerprint.${publicKeyFingerprint(verdict.key)}`);
    return { access_token: token.accessToken, token_type: 'Bearer', expires_in: token.expiresIn };
  }
}
