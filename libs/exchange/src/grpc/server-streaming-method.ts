import { type Client, type ClientReadableStream, Metadata, type MethodDefinition } from '@grpc/grpc-js';

import type { GrpcTarget } from './grpc-target.js';
import { loadExchangeService } from './market-data.proto.js';

/**
 * One server-streaming method of an exchange service, its protos read and its client made on the
 * first call (a deployment that never opens the stream never needs the files). Calls carry the
 * bearer and, for account-scoped services, the participant they act for (spec 5.1.4).
 */
export class ServerStreamingMethod<Req, Res> {
  private connection?: { client: Client; method: MethodDefinition<Req, Res> };

  constructor(
    private readonly grpc: GrpcTarget,
    private readonly file: string,
    private readonly service: string,
    private readonly name: string,
  ) {}

  call(request: Req, authorization: string, participant?: string): ClientReadableStream<Res> {
    const { client, method } = this.connect();
    const metadata = new Metadata();
    metadata.set('authorization', authorization);
    if (participant) metadata.set('x-participant-id', participant);
    return client.makeServerStreamRequest(
      method.path,
      method.requestSerialize,
      method.responseDeserialize,
      request,
      metadata,
    );
  }

  close(): void {
    this.connection?.client.close();
    this.connection = undefined;
  }

  private connect(): { client: Client; method: MethodDefinition<Req, Res> } {
    if (!this.connection) {
      const Client = loadExchangeService(this.grpc.protoDir, this.file, this.service);
      const method = Client.service[this.name];
      if (!method?.responseStream)
        throw new Error(`${this.service} in ${this.grpc.protoDir} has no server-streaming ${this.name}`);
      this.connection = {
        client: new Client(this.grpc.target, this.grpc.credentials),
        method: method as MethodDefinition<Req, Res>,
      };
    }
    return this.connection;
  }
}
