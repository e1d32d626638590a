/** The upstream scope names (spec §5.1), reused for internal clients, plus `admin` for gateway operations. */
export const SCOPES = [
  'read:marketdata',
  'read:l2marketdata',
  'read:instruments',
  'read:orders',
  'write:orders',
  'read:reports',
  'read:positions',
  'read:dropcopy',
  'read:accounts',
  'read:funding',
  'write:funding',
  'admin',
] as const;

export type Scope = (typeof SCOPES)[number];
