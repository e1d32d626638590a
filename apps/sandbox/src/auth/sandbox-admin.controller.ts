import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post } from '@nestjs/common';
import { z } from 'zod';

import { parseBody } from '../shared/parse-body.js';
import { SANDBOX_STATE, type SandboxFaults, type SandboxState } from '../shared/sandbox-state.js';

const ClockBody = z.object({ skewMs: z.number().int() }).strict();
const KeyBody = z.object({ publicKeyPem: z.string().min(1) }).strict();
const FaultsBody = z.object({ authDown: z.boolean(), latencyRejectNext: z.number().int().min(0) }).partial().strict();

interface ClientKeys {
  clientId: string;
  /** SHA-256 of each registered public key (SPKI DER); key material itself is never returned. */
  fingerprints: string[];
}

/**
 * The operator's side of the sandbox (not an upstream route): clock skew, key rotation, faults and
 * counters. Unauthenticated on purpose: the sandbox is a local test double on a loopback port.
 */
@Controller('_sandbox')
export class SandboxAdminController {
  constructor(@Inject(SANDBOX_STATE) private readonly state: SandboxState) {}

  @Post('clock')
  @HttpCode(200)
  setClock(@Body() body: unknown): { skewMs: number } {
    this.state.setClockSkew(parseBody(ClockBody, body).skewMs);
    return { skewMs: this.state.clock.skewMs };
  }

  @Get('exchange/clients/:clientId/keys')
  keys(@Param('clientId') clientId: string): ClientKeys {
    return { clientId, fingerprints: this.state.exchangeKeyFingerprints(clientId) };
  }

  @Post('exchange/clients/:clientId/keys')
  addKey(@Param('clientId') clientId: string, @Body() body: unknown): ClientKeys & { fingerprint: string } {
    const fingerprint = this.state.addExchangeKey(clientId, parseBody(KeyBody, body).publicKeyPem);
    return { fingerprint, ...this.keys(clientId) };
  }

  @Delete('exchange/clients/:clientId/keys/:fingerprint')
  removeKey(@Param('clientId') clientId: string, @Param('fingerprint') fingerprint: string): ClientKeys {
    this.state.removeExchangeKey(clientId, fingerprint);
    return this.keys(clientId);
  }

  @Post('faults')
  @HttpCode(200)
  setFaults(@Body() body: unknown): SandboxFaults {
    return this.state.setFaults(parseBody(FaultsBody, body));
  }

  @Get('counters')
  counters(): { counters: Record<string, number> } {
    return { counters: this.state.counterSnapshot() };
  }
}
