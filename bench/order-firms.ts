/** Each order target of `npm run bench orders` trades as its own firm, so no gateway receives another target's order and drop-copy events (ORDDIRECT: the sandbox directly; the extras: the BENCH_ORDERS_BASELINE builds' gateways). */
export const ORDER_FIRMS = [
  'ORDDIRECT',
  'ORDFULL',
  'ORDRISKOFF',
  'ORDJOURNALOFF',
  'ORDBARE',
  'ORDEXTRA1',
  'ORDEXTRA2',
  'ORDEXTRA3',
  'ORDEXTRA4',
] as const;
