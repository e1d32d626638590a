import type { Scope } from '@lib/core';

import type { AuthenticatedClient } from '../../common/auth/authenticated-client.js';
import { visibleIdentity } from './visible-identity.js';

const ALICE = 'firms/DEVFIRM/users/alice';
const BOB = 'firms/DEVFIRM/users/bob';
const client = (scopes: Scope[]): AuthenticatedClient => ({
  id: 'c',
  team: 't',
  scopes: new Set(scopes),
  participants: [ALICE],
  retailAccounts: [],
  firmWide: false,
  feedScope: 'participants',
});
const reply = (body: unknown) => ({ status: 200, headers: {}, text: JSON.stringify(body), sentAt: 0, receivedAt: 0 });
const shown = (body: unknown, scopes: Scope[] = ['read:accounts']) =>
  JSON.parse(visibleIdentity(reply(body), client(scopes)).text);

describe(visibleIdentity.name, () => {
  it('keeps only the participants the client may act for, in lists and in records', () => {
    expect(shown({ users: [ALICE, BOB] })).toEqual({ users: [ALICE] });
    expect(
      shown({
        users: [
          { participant: ALICE, name: 'a' },
          { participant: BOB, name: 'b' },
        ],
      }),
    ).toEqual({ users: [{ participant: ALICE, name: 'a' }] });
    expect(shown({ participant: BOB, firm: 'DEVFIRM' })).toEqual({ firm: 'DEVFIRM' });
  });

  it("shows of the gateway's upstream scopes only those the client holds", () => {
    expect(shown({ scopes: ['read:accounts', 'write:orders', 'write:funding'] })).toEqual({
      scopes: ['read:accounts'],
    });
  });

  it('shows an admin client the answer as the exchange gave it', () => {
    const sut = reply({ users: [ALICE, BOB], scopes: ['write:funding'] });
    expect(visibleIdentity(sut, client(['admin']))).toBe(sut);
  });
});
