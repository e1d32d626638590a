import { type DynamicModule, Global, Module } from '@nestjs/common';

import { SANDBOX_STATE, type SandboxState } from './sandbox-state.js';

@Global()
@Module({})
export class SandboxStateModule {
  static forRoot(state: SandboxState): DynamicModule {
    return {
      exports: [SANDBOX_STATE],
      module: SandboxStateModule,
      providers: [{ provide: SANDBOX_STATE, useValue: state }],
    };
  }
}
