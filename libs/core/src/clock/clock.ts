import { Global, Module } from '@nestjs/common';

/** Injectable time source so tests can move time without sleeping. */
export abstract class Clock {
  abstract now(): number;
}

export class SystemClock extends Clock {
  now(): number {
    return Date.now();
  }
}

/** Makes one Clock injectable everywhere; tests that drive time override the provider. */
@Global()
@Module({
  exports: [Clock],
  providers: [{ provide: Clock, useClass: SystemClock }],
})
export class ClockModule {}
