import { Injectable } from '@nestjs/common';
import { ForbiddenError } from '@lib/core';
import { type AccountCallerContext, ExchangeAccounts } from '@lib/exchange';
import { jsonOrUndefined } from '@lib/upstream';
import { z } from 'zod';

import type { BoundBody } from './identity-binder.js';

/** Funding account records are not shown upstream (spec 2.8): only their ids are read, loosely. */
const FundingAccountsSchema = z.looseObject({
  accounts: z.array(z.looseObject({ id: z.string().optional(), fundingAccountId: z.string().optional() })).optional(),
});

const ECHO_LIMIT = 100;

/**
 * A deposit (or any request) naming a funding account by id is sent only when that id is one of the
 * chosen participant's funding accounts, as the exchange lists them to that participant (GET
 * /v1/funding/accounts: no published limit, so no budget is spent); otherwise 403 naming the field,
 * and the request never reaches the upstream. An upstream that resolved funding ids firm-wide would
 * otherwise move another participant's money. Ids that name another participant never get this far
 * (IdentityBinder refuses them at once).
 */
@Injectable()
export class OwnedFundingAccounts {
  constructor(private readonly accounts: ExchangeAccounts) {}

  async confirmed<T>(caller: AccountCallerContext, bound: BoundBody<T>): Promise<T> {
    if (bound.fundingAccounts.length === 0) return bound.body;
    const own = await this.ownIds(caller);
    const foreign = bound.fundingAccounts.find((reference) => !own.has(reference.id));
    if (foreign) {
      const shown = foreign.id.length > ECHO_LIMIT ? `${foreign.id.slice(0, ECHO_LIMIT)}…` : foreign.id;
      throw new ForbiddenError(
        `Client ${caller.client ?? ''} may not use funding account ${shown} for participant ${caller.participant} (${foreign.field}).`,
        { field: foreign.field, fundingAccountId: shown },
      );
    }
    return bound.body;
  }

  private async ownIds(caller: AccountCallerContext): Promise<Set<string>> {
    const reply = await this.accounts.fundingAccounts(caller);
    const parsed = FundingAccountsSchema.safeParse(jsonOrUndefined(reply.text));
    const records = parsed.success ? (parsed.data.accounts ?? []) : [];
    return new Set(
      records.flatMap((record) => [record.id, record.fundingAccountId].filter((id): id is string => id !== undefined)),
    );
  }
}
