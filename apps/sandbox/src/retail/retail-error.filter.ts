import { Catch } from '@nestjs/common';

import { type ResolvedError, SurfaceErrorFilter } from '../shared/surface-error.filter.js';

/** Every error of the retail surface as `{message}`, the body the official SDK reads (upstream-facts). */
@Catch()
export class RetailErrorFilter extends SurfaceErrorFilter {
  protected body({ message }: ResolvedError): object {
    return { message };
  }
}
