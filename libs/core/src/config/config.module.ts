import { type DynamicModule, Global, Module } from '@nestjs/common';

import type { GatewayConfig } from './config.schema.js';

export const GATEWAY_CONFIG = Symbol('GATEWAY_CONFIG');

/** Makes the validated configuration injectable everywhere as `@Inject(GATEWAY_CONFIG)`. */
@Global()
@Module({})
export class ConfigModule {
  static forRoot(config: GatewayConfig): DynamicModule {
    return {
      exports: [GATEWAY_CONFIG],
      module: ConfigModule,
      providers: [{ provide: GATEWAY_CONFIG, useValue: config }],
    };
  }
}
