import { SurfaceError } from './surface-error.js';

export interface SandboxUrls {
  auth: string;
  exchange: string;
  /** host:port of the gRPC server (plaintext). */
  grpc: string;
  retail: string;
  catalog: string;
}

/** The surfaces' own addresses (token audience, assertion `aud`); known once every surface listens. */
export class SandboxAddresses {
  private known?: SandboxUrls;

  get urls(): SandboxUrls {
    if (!this.known) throw new SurfaceError(503, 'the sandbox is still starting');
    return this.known;
  }

  set(urls: SandboxUrls): void {
    this.known = urls;
  }
}
