import type { IncomingMessage } from 'node:http';

import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { type GatewayConfig, REQUEST_ID_HEADER, requestIdOf } from '@lib/core';
import { Logger } from 'nestjs-pino';

import { AppModule, type AppModuleOptions } from './app.module.js';
import { catalogOpenApiPaths } from './catalog/catalog-http-routes.js';

export type GatewayOptions = AppModuleOptions;

/** Builds the gateway application (not yet listening); used by main.ts, the tests and the benchmarks. */
export async function createGateway(config: GatewayConfig, options: GatewayOptions = {}): Promise<NestFastifyApplication> {
  const adapter = new FastifyAdapter({
    bodyLimit: config.server.bodyLimitBytes,
    trustProxy: config.server.trustProxy,
    return503OnClosing: true,
    // One request id for Fastify, the log line and the upstream call: normalise it onto the raw header.
    genReqId: (req: IncomingMessage) => {
      const id = requestIdOf(req);
      req.headers[REQUEST_ID_HEADER] = id;
      return id;
    },
  });
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config, options), adapter, { abortOnError: false, bufferLogs: true });
  app.useLogger(app.get(Logger));
  app.flushLogs();
  const fastify = app.getHttpAdapter().getInstance();
  // Set when the request arrives (error answers keep it): no onSend hook, so Fastify skips that stage on every reply.
  fastify.addHook('onRequest', (request, reply, done) => {
    reply.header(REQUEST_ID_HEADER, request.id);
    done();
  });
  setupDocs(app);
  await app.init();
  return app;
}

function setupDocs(app: NestFastifyApplication): void {
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Prediction-market gateway')
      .setDescription('One authenticated API in front of the exchange, retail and catalog upstreams. Errors are application/problem+json (RFC 9457).')
      .setVersion('1')
      .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'Internal API key' })
      .build(),
  );
  // The catalog routes are registered on Fastify directly (see CatalogHttpRoutes), so Nest's scanner does not see them.
  Object.assign(document.paths, catalogOpenApiPaths());
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'docs/json', yamlDocumentUrl: 'docs/yaml' });
}

/** Stops accepting, drains in-flight requests for at most `graceMs`, then closes pools and Redis. */
export async function closeGracefully(app: NestFastifyApplication, graceMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), graceMs);
    timer.unref();
  });
  const closed = app.close().then(() => true);
  const result = await Promise.race([closed, deadline]);
  clearTimeout(timer);
  return result;
}
