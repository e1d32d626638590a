import {
  type Client,
  type ClientDuplexStream,
  type ClientReadableStream,
  Metadata,
  credentials,
  status as GrpcStatus,
} from '@grpc/grpc-js';

import { issueAccessToken } from '../../apps/sandbox/src/auth/access-token.js';
import { type PublishedService, exchangeClient } from '../../apps/sandbox/src/exchange/grpc/wire/proto-services.js';
import type { RunningSandbox } from '../../apps/sandbox/src/sandbox.js';

// A raw exchange client of the sandbox's gRPC server built from the proto files alone (the sandbox's
// loader, never the gateway's), as any exchange client would be.

export interface CallAuth {
  token?: string;
  participant?: string;
}

export interface RecordedCall<T> {
  messages: T[];
  status: Promise<{ code: GrpcStatus; details: string }>;
  cancel(): void;
}

export interface RecordedDuplex<T> extends RecordedCall<T> {
  send(message: object): void;
  end(): void;
}

type Call = ClientReadableStream<unknown> | ClientDuplexStream<object, unknown>;
type StreamMethod = (...args: unknown[]) => Call;

export class SandboxGrpcClient {
  private readonly clients = new Map<PublishedService, Client>();

  constructor(
    private readonly sandbox: RunningSandbox,
    private readonly protoDir = 'proto',
  ) {}

  /** A fresh access token of an onboarded client, straight from the sandbox's token service. */
  token(clientId: string): string {
    const { state } = this.sandbox;
    return issueAccessToken(state, state.exchangeClients.get(clientId)!).accessToken;
  }

  serverStream<T>(service: PublishedService, method: string, request: object, auth: CallAuth): RecordedCall<T> {
    return record<T>(this.method(service, method)(request, metadataOf(auth)));
  }

  duplex<T>(service: PublishedService, method: string, auth: CallAuth): RecordedDuplex<T> {
    const call = this.method(service, method)(metadataOf(auth)) as ClientDuplexStream<object, unknown>;
    return { ...record<T>(call), send: (message) => call.write(message), end: () => call.end() };
  }

  close(): void {
    for (const client of this.clients.values()) client.close();
  }

  private method(service: PublishedService, method: string): StreamMethod {
    let client = this.clients.get(service);
    if (!client) {
      const Ctor = exchangeClient(this.protoDir, service);
      client = new Ctor(this.sandbox.urls.grpc, credentials.createInsecure());
      this.clients.set(service, client);
    }
    const fn = (client as unknown as Record<string, StreamMethod>)[method];
    return fn.bind(client);
  }
}

function metadataOf(auth: CallAuth): Metadata {
  const metadata = new Metadata();
  if (auth.token) metadata.set('authorization', `Bearer ${auth.token}`);
  if (auth.participant) metadata.set('x-participant-id', auth.participant);
  return metadata;
}

function record<T>(call: Call): RecordedCall<T> {
  const messages: T[] = [];
  call.on('data', (message: T) => messages.push(message));
  call.on('error', () => undefined);
  const status = new Promise<{ code: GrpcStatus; details: string }>((resolve) => call.on('status', resolve));
  return { messages, status, cancel: () => call.cancel() };
}
