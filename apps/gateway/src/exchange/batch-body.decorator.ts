import { Body, type PipeTransform } from '@nestjs/common';
import { ApiBody } from '@nestjs/swagger';
import { assertBatchSize } from '@lib/exchange';
import type { z } from 'zod';

import { ZodPipe, openApiSchemaOf } from '../common/zod-params.js';

/** Size before shape: a batch of more than 20 orders is a 413 whatever its items hold (spec 4.1, 8). */
class BatchSizePipe implements PipeTransform<unknown, unknown> {
  transform(value: unknown): unknown {
    assertBatchSize(value);
    return value;
  }
}

/** `@BatchBody(Schema)`: like `@ZodBody`, with the batch-size check first. */
export function BatchBody(schema: z.ZodType): ParameterDecorator {
  return (target, key, index) => {
    Body(new BatchSizePipe(), new ZodPipe(schema, 'body'))(target, key, index);
    if (key !== undefined) ApiBody({ schema: openApiSchemaOf(schema) })(target, key, Object.getOwnPropertyDescriptor(target, key) as PropertyDescriptor);
  };
}
