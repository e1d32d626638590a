import { type DynamicModule, Global, Module } from '@nestjs/common';

export const GATEWAY_CONFIG = Symbol('GATEWAY_CONFIG');

/**
 * Makes the validated configuration injectable everywhere as `@Inject(GATEWAY_CONFIG)`; each reader types
 * it with its own view (the sections it reads), never the app's whole type.
 */
@Global()
@Module({})
export class ConfigModule {
  static forRoot(config: object): DynamicModule {
    return {
      exports: [GATEWAY_CONFIG],
      module: ConfigModule,
      providers: [{ provide: GATEWAY_CONFIG, useValue: config }],
    };
  }
}
