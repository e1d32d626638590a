import { ForbiddenError, type IdentityKind, assertUnreachable } from '@lib/core';

import type { FieldPath, IdentityField } from './identity-fields.js';

/** Who the request is bound to: the participant it acts for, and every participant its API key may use. */
export interface BindingContext {
  clientId: string;
  chosen: string;
  allowed: readonly string[];
}

/** An id the request names (an order, a funding account), with the field that named it (`requests[3].orderId`). */
export interface OrderReference {
  field: string;
  id: string;
}

/** A validated body whose identity fields are bound; its order and funding account references still need confirming upstream. */
export interface BoundBody<T> {
  readonly body: T;
  readonly orders: readonly OrderReference[];
  readonly fundingAccounts: readonly OrderReference[];
}

/** spec 5.1.4: how the exchange names a participant, wherever it appears inside an id. */
const PARTICIPANT_IN_ID = /firms\/[^/\s]+\/users\/[^/\s:;,|]+/g;

type Json = Record<string, unknown>;

interface Found {
  orders: OrderReference[];
  fundingAccounts: OrderReference[];
}

interface Slot {
  parent: Json;
  key: string;
  field: string;
}

const ECHO_LIMIT = 100;
const echo = (value: string): string => (value.length > ECHO_LIMIT ? `${value.slice(0, ECHO_LIMIT)}…` : value);
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A copy of a validated JSON body to bind: its plain objects and arrays copied, anything else kept. It
 * was `structuredClone`, about 2.5 % of an order insert's CPU in the gateway (`npm run bench orders`,
 * CPU profile of `bare`): V8's serializer writes the whole body out and reads it back.
 */
function copyJson<T>(value: T): T {
  if (Array.isArray(value)) return value.map(copyJson) as T;
  if (typeof value !== 'object' || value === null) return value;
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return value;
  const copy: Json = {};
  for (const key of Object.keys(value)) {
    const item = copyJson((value as Json)[key]);
    // An own `__proto__` key (JSON.parse makes one) stays a key, as structuredClone kept it.
    if (key === '__proto__')
      Object.defineProperty(copy, key, { value: item, enumerable: true, writable: true, configurable: true });
    else copy[key] = item;
  }
  return copy as T;
}

/** Every place a path reaches in a body, named as a client writes it (`requests[3].account`). */
function slotsOf(node: unknown, path: FieldPath, field = ''): Slot[] {
  const [head, ...rest] = path;
  if (head === '*') return Array.isArray(node) ? node.flatMap((item, i) => slotsOf(item, rest, `${field}[${i}]`)) : [];
  if (!isObject(node)) return [];
  const name = field === '' ? head : `${field}.${head}`;
  return rest.length === 0 ? [{ parent: node, key: head, field: name }] : slotsOf(node[head], rest, name);
}

/**
 * The one rule for identities in exchange request bodies (issue 14), applied before any budget is
 * spent: each field the schema marks is bound to the calling client (see IDENTITY_KINDS in @lib/core).
 */
export class IdentityBinder {
  constructor(readonly fields: readonly IdentityField[]) {}

  bind<T>(body: T, context: BindingContext): BoundBody<T> {
    const bound = copyJson(body);
    const found: Found = { orders: [], fundingAccounts: [] };
    for (const { path, kind } of this.fields) {
      for (const slot of slotsOf(bound, path)) this.bindSlot(slot, kind, context, found);
    }
    return { body: bound, ...found };
  }

  private bindSlot(
    { parent, key, field }: Slot,
    kind: IdentityKind,
    context: BindingContext,
    { orders, fundingAccounts }: Found,
  ): void {
    const value = parent[key];
    switch (kind) {
      case 'account':
        if (value === undefined) parent[key] = context.chosen;
        else this.check(value, field, context);
        return;
      case 'participant':
        if (value !== undefined) this.check(value, field, context);
        return;
      case 'accounts':
        if (value === undefined || (Array.isArray(value) && value.length === 0)) parent[key] = [...context.allowed];
        else if (Array.isArray(value)) value.forEach((item, i) => this.check(item, `${field}[${i}]`, context));
        else this.check(value, field, context);
        return;
      case 'order':
        if (typeof value === 'string') orders.push({ field, id: value });
        return;
      case 'retail-order':
        // Retail identities are the signing key's (x-retail-account); the upstream scopes its order ids to it.
        return;
      case 'funding-account':
        if (typeof value !== 'string') return;
        // An id that names another participant than the one the request acts for is refused here, with no lookup.
        for (const named of value.match(PARTICIPANT_IN_ID) ?? []) {
          if (named !== context.chosen) this.refuseFunding(value, field, context);
        }
        fundingAccounts.push({ field, id: value });
        return;
      default:
        assertUnreachable(kind);
    }
  }

  private refuseFunding(value: string, field: string, context: BindingContext): never {
    throw new ForbiddenError(
      `Client ${context.clientId} may not use funding account ${echo(value)} for participant ${context.chosen} (${field}).`,
      { field, fundingAccountId: echo(value) },
    );
  }

  private check(value: unknown, field: string, context: BindingContext): void {
    if (typeof value === 'string' && context.allowed.includes(value)) return;
    const shown = typeof value === 'string' ? echo(value) : typeof value;
    throw new ForbiddenError(`Client ${context.clientId} may not act for participant ${shown} (${field}).`, {
      field,
      participant: shown,
    });
  }
}
