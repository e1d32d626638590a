import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Clock, CoreConfigSchema, ENVIRONMENT_NAMES } from '@lib/core';
import { z } from 'zod';

import { EnvironmentSchema, ExchangeTokenFields, RetailSigningFields } from '../config/auth.config.js';
import { pemBegin } from '../keys/key-files.js';

/** Test and bench helpers for libs/auth; not exported from the library. */

/**
 * The sections auth's code reads, resolved as the app's schema resolves them: core's and auth's own
 * slices. `exchange` keeps the exchange lib's fields too (unread here), so a spec can show auth ignores them.
 */
export const AuthTestConfigSchema = CoreConfigSchema.safeExtend({
  environments: z.partialRecord(z.enum(ENVIRONMENT_NAMES), EnvironmentSchema),
  exchange: z.looseObject(ExchangeTokenFields).prefault({}),
  retail: z.object(RetailSigningFields).strict().prefault({}),
});
export type AuthTestConfig = z.infer<typeof AuthTestConfigSchema>;
export type AuthTestConfigInput = z.input<typeof AuthTestConfigSchema>;

export const RETAIL_KEY_ID = '3f1c9a52-7d4e-4b8a-9c21-5e6f7a8b9c0d';
export const HEDGE_KEY_ID = '8a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d';

export class ManualClock extends Clock {
  constructor(public ms = 1_800_000_000_000) {
    super();
  }
  now(): number {
    return this.ms;
  }
  advance(ms: number): void {
    this.ms += ms;
  }
}

export interface KeyDir {
  dir: string;
  exchangeFile: string;
  retailFile: string;
  hedgeFile: string;
  exchangePublicKey: KeyObject;
  retailPublicKey: KeyObject;
  hedgePublicKey: KeyObject;
  remove(): void;
}

export function newRsaPem(type: 'pkcs8' | 'pkcs1' = 'pkcs8'): { pem: string; publicKey: KeyObject } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { pem: privateKey.export({ type, format: 'pem' }) as string, publicKey };
}

/** A fresh Ed25519 key: base64 of the 32-byte seed, or of seed‖public key when `form` is 64. */
export function newEd25519Secret(form: 32 | 64 = 32): { secret: string; publicKey: KeyObject } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const seed = privateKey.export({ type: 'pkcs8', format: 'der' }).subarray(-32);
  const raw = publicKey.export({ type: 'spki', format: 'der' }).subarray(-32);
  return { secret: (form === 32 ? seed : Buffer.concat([seed, raw])).toString('base64'), publicKey };
}

/** RSA generation is slow; directories share one key unless a test writes its own. */
let sharedRsa: ReturnType<typeof newRsaPem> | undefined;

/** A temporary directory with an exchange PEM and two retail secrets. */
export function writeKeyDir(): KeyDir {
  const dir = mkdtempSync(join(tmpdir(), 'auth-keys-'));
  const rsa = (sharedRsa ??= newRsaPem());
  const retail = newEd25519Secret();
  const hedge = newEd25519Secret(64);
  const files = {
    exchangeFile: join(dir, 'exchange.pem'),
    retailFile: join(dir, 'retail-main.key'),
    hedgeFile: join(dir, 'retail-hedge.key'),
  };
  writeFileSync(files.exchangeFile, rsa.pem);
  writeFileSync(files.retailFile, retail.secret + '\n');
  writeFileSync(files.hedgeFile, hedge.secret);
  return {
    dir,
    ...files,
    exchangePublicKey: rsa.publicKey,
    retailPublicKey: retail.publicKey,
    hedgePublicKey: hedge.publicKey,
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

export interface Addresses {
  authUrl: string;
  exchangeUrl?: string;
  retailUrl?: string;
}

/** A validated config whose running environment (development) uses `keys` and `addresses`. */
export function authConfig(
  keys: KeyDir,
  addresses: Addresses,
  edit: (input: AuthTestConfigInput) => void = () => undefined,
): AuthTestConfig {
  const input: AuthTestConfigInput = {
    environment: 'development',
    environments: {
      development: {
        authUrl: addresses.authUrl,
        exchangeUrl: addresses.exchangeUrl ?? 'http://127.0.0.1:4002',
        grpcTarget: '127.0.0.1:4003',
        grpcTls: false,
        retailUrl: addresses.retailUrl ?? 'http://127.0.0.1:4004',
        exchangeClient: { clientId: 'gateway-test', privateKeyFile: keys.exchangeFile },
        retailAccounts: [
          { name: 'main', keyId: RETAIL_KEY_ID, secretKeyFile: keys.retailFile },
          { name: 'hedge', keyId: HEDGE_KEY_ID, secretKeyFile: keys.hedgeFile },
        ],
      },
      production: {
        authUrl: 'https://auth.example.com',
        exchangeUrl: 'https://api.example.com',
        grpcTarget: 'grpc.example.com:443',
        retailUrl: 'https://retail.example.com',
        exchangeClient: { clientId: 'gateway-prod', privateKeyFile: join(keys.dir, 'absent-production.pem') },
      },
    },
    exchange: { refreshBackoffInitialMs: 20, refreshBackoffMaxMs: 80 },
  };
  edit(input);
  return AuthTestConfigSchema.parse(input);
}

export interface TokenReply {
  status: number;
  body: unknown;
  /** Milliseconds to wait before answering. */
  delayMs?: number;
}

/** A successful token answer: `token-<n>` valid for `expiresIn` seconds. */
export function grant(n: number, expiresIn = 180): TokenReply {
  return { status: 200, body: { access_token: `token-${n}`, token_type: 'Bearer', expires_in: expiresIn } };
}

/** A token endpoint on 127.0.0.1:0 that records every request body and answers with `reply`. */
export class TokenServer {
  readonly requests: Array<Record<string, unknown>> = [];
  reply: (n: number) => TokenReply = (n) => grant(n);
  /** While set, answers wait for it: lets a test hold a token request in flight. */
  gate: Promise<void> | undefined;
  private readonly server: Server = createServer((req, res) => void this.handle(req, res));

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let text = '';
    for await (const chunk of req) text += String(chunk);
    this.requests.push({ ...(JSON.parse(text) as Record<string, unknown>), method: req.method, path: req.url });
    const reply = this.reply(this.requests.length);
    if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
    if (this.gate) await this.gate;
    res.writeHead(reply.status, { 'content-type': 'application/json' }).end(JSON.stringify(reply.body));
  }
}

/** Polls until `condition` holds; fails the test after `timeoutMs`. */
export async function eventually(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A PEM block of this label around a made-up body: shaped like key material, holding none. */
export function fakePemBlock(label: string, body: string): string {
  return `${pemBegin(label)}\n${body}\n${pemBegin(label).replace('BEGIN', 'END')}\n`;
}
