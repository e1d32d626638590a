/** Each order target of `npm run bench orders` trades as its own firm, so no gateway receives another target's order and drop-copy events. */
export const ORDER_FIRMS = ['ORDDIRECT', 'ORDFULL', 'ORDRISKOFF', 'ORDJOURNALOFF', 'ORDBARE', 'ORDBASEFULL', 'ORDBASEBARE'] as const;
