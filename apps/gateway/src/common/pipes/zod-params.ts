import { Body, Param, Query, type PipeTransform } from '@nestjs/common';
import { ApiBody, ApiParam, ApiQuery } from '@nestjs/swagger';
import { type FieldError, ValidationError, clip } from '@lib/core';
import { z } from 'zod';

type Where = 'body' | 'query' | 'params';
/** A body with 10,000 unknown keys gets the first few named, not a 10,000-entry answer. */
const MAX_UNKNOWN_KEYS = 10;

/** Parses with a zod schema; every issue becomes a field error with its path (`body.orders.3.price`). */
export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, where: Where): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new ValidationError(result.error.issues.flatMap((issue) => fieldErrorsOf(issue, where)));
}

/**
 * One field error per issue; a strict object's unknown keys get one each, named (`query.colour`), not
 * one for the object. Names are the client's (an unknown key may be 10,000 characters): each is clipped.
 */
function fieldErrorsOf(issue: z.core.$ZodIssue, where: Where): FieldError[] {
  const path = [where, ...issue.path.map((name) => clip(String(name)))];
  if (issue.code === 'unrecognized_keys')
    return issue.keys
      .slice(0, MAX_UNKNOWN_KEYS)
      .map((key) => ({ path: [...path, clip(key)].join('.'), message: 'Unknown parameter.' }));
  return [{ path: path.join('.'), message: issue.message }];
}

export class ZodPipe<S extends z.ZodType> implements PipeTransform<unknown, z.infer<S>> {
  constructor(
    private readonly schema: S,
    private readonly where: Where,
  ) {}

  transform(value: unknown): z.infer<S> {
    return parseOrThrow(this.schema, value, this.where);
  }
}

/** The OpenAPI form of a schema: the document is generated from the schema that validates. */
export function openApiSchemaOf(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  return rest;
}

/** `@ZodBody(Schema) body: T`: validates the body and documents it, from one schema. */
export function ZodBody(schema: z.ZodType): ParameterDecorator {
  return (target, key, index) => {
    Body(new ZodPipe(schema, 'body'))(target, key, index);
    if (key !== undefined) {
      const descriptor = Object.getOwnPropertyDescriptor(target, key) as PropertyDescriptor;
      // A schema that accepts no body at all (POST /ws/tickets) documents its body as optional.
      ApiBody({ schema: openApiSchemaOf(schema), required: !schema.safeParse(undefined).success })(
        target,
        key,
        descriptor,
      );
    }
  };
}

export interface OpenApiParameter {
  name: string;
  in: 'path' | 'query';
  required: boolean;
  schema: Record<string, unknown>;
}

/** The OpenAPI parameters of an object schema's properties: every path parameter is required, a query one when the schema requires it. */
export function openApiParametersOf(schema: z.ZodObject, where: 'path' | 'query'): OpenApiParameter[] {
  const json = openApiSchemaOf(schema) as { properties?: Record<string, Record<string, unknown>>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, property]) => ({
    name,
    in: where,
    required: where === 'path' || (json.required?.includes(name) ?? false),
    schema: property,
  }));
}

/** `@ZodParams(Schema) params: T`: validates the path parameters and documents each one. */
export function ZodParams(schema: z.ZodObject): ParameterDecorator {
  return (target, key, index) => {
    Param(new ZodPipe(schema, 'params'))(target, key, index);
    if (key === undefined) return;
    const descriptor = Object.getOwnPropertyDescriptor(target, key) as PropertyDescriptor;
    for (const { name, required, schema: property } of openApiParametersOf(schema, 'path'))
      ApiParam({ name, required, schema: property })(target, key, descriptor);
  };
}

/** `@ZodQuery(Schema) query: T`: validates the query string (unknown keys refused when the schema is strict) and documents each parameter. */
export function ZodQuery(schema: z.ZodObject): ParameterDecorator {
  return (target, key, index) => {
    Query(new ZodPipe(schema, 'query'))(target, key, index);
    if (key === undefined) return;
    const descriptor = Object.getOwnPropertyDescriptor(target, key) as PropertyDescriptor;
    for (const { name, required, schema: property } of openApiParametersOf(schema, 'query'))
      ApiQuery({ name, required, schema: property })(target, key, descriptor);
  };
}
