import { identityFieldsOf } from './identity-fields.js';

describe(identityFieldsOf.name, () => {
  it('finds marks under properties, array items and union branches', () => {
    const schema = {
      properties: {
        account: { type: 'string', 'x-identity': 'account' },
        requests: { type: 'array', items: { properties: { orderId: { 'x-identity': 'order' } } } },
        filter: { anyOf: [{ properties: { accounts: { 'x-identity': 'accounts' } } }, { type: 'null' }] },
        symbol: { type: 'string' },
      },
    };
    expect(identityFieldsOf(schema)).toEqual([
      { path: ['account'], kind: 'account' },
      { path: ['requests', '*', 'orderId'], kind: 'order' },
      { path: ['filter', 'accounts'], kind: 'accounts' },
    ]);
  });

  it('refuses a mark it does not know, so a misspelt one cannot leave a field unbound', () => {
    expect(() => identityFieldsOf({ properties: { user: { 'x-identity': 'acount' } } })).toThrow(
      'unknown x-identity "acount" at user',
    );
  });
});
