import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { Logger } from 'nestjs-pino';

import { AppModule, type AppModuleOptions } from './app.module.js';
import { CatalogFastPath } from './catalog/catalog-fast-path.js';
import { catalogOpenApiPaths } from './catalog/catalog-http-routes.js';
import { markPublicRoutes } from './common/auth/public-route.js';
import { ClientAuthGuard } from './common/guards/client-auth.guard.js';
import { CompletedRequests } from './common/hooks/completed-requests.js';
import { installJsonBodyParser } from './common/http/json-body.js';
import { installRequestGate } from './common/hooks/request-gate.js';
import { fastifyOptions, refuseConnect } from './common/http/server-options.js';
import type { GatewayConfig } from './config/gateway-config.schema.js';

export type GatewayOptions = AppModuleOptions;

/** Where SwaggerModule serves the OpenAPI pages and documents. */
const DOCS_PATH = 'docs';
/** The only files of swagger-ui-dist the page loads, of the static route SwaggerModule's plugin adds under DOCS_PATH. */
const DOCS_ASSETS = new Set([
  'swagger-ui.css',
  'swagger-ui-bundle.js',
  'swagger-ui-standalone-preset.js',
  'favicon-32x32.png',
  'favicon-16x16.png',
]);

/** Builds the gateway application (not yet listening); used by main.ts, the tests and the benchmarks. */
export async function createGateway(
  config: GatewayConfig,
  options: GatewayOptions = {},
): Promise<NestFastifyApplication> {
  const adapter = new FastifyAdapter(fastifyOptions(config.server));
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config, options), adapter, {
    abortOnError: false,
    bufferLogs: true,
    // JSON only (installJsonBodyParser): Nest's default parsers would also take form bodies, and Fastify's
    // text/plain, so an order sent as a form was placed; any other type is now 415 naming application/json.
    bodyParser: false,
  });
  app.useLogger(app.get(Logger));
  app.flushLogs();
  const fastify = app.getHttpAdapter().getInstance();
  // Connections past the cap are closed by the listening socket before a byte is read.
  app.getHttpServer().maxConnections = config.server.maxConnections;
  refuseConnect(app.getHttpServer());
  installRequestGate(fastify, app.get(ClientAuthGuard));
  fastify.removeContentTypeParser('text/plain');
  installJsonBodyParser(app, config.server.maxJsonDepth, config.server.bodyLimitBytes);
  app.get(CatalogFastPath).install(adapter, app.get(CompletedRequests));
  setupDocs(app);
  await app.init();
  return app;
}

function setupDocs(app: NestFastifyApplication): void {
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Prediction-market gateway')
      .setDescription(
        'One authenticated API in front of the exchange, retail and catalog upstreams. Errors are application/problem+json (RFC 9457).',
      )
      .setVersion('1')
      .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'Internal API key' })
      .build(),
  );
  // The catalog routes are registered on Fastify directly (see CatalogHttpRoutes), so Nest's scanner does not see them.
  Object.assign(document.paths, catalogOpenApiPaths());
  // SwaggerModule registers on Fastify itself, past the @Public() marks: its routes are marked public here.
  markPublicRoutes(
    app.getHttpAdapter().getInstance(),
    () =>
      SwaggerModule.setup(DOCS_PATH, app, document, {
        jsonDocumentUrl: `${DOCS_PATH}/json`,
        yamlDocumentUrl: `${DOCS_PATH}/yaml`,
      }),
    {
      route: `/${DOCS_PATH}/*`,
      names: DOCS_ASSETS,
    },
  );
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
