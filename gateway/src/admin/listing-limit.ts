/**
 * How many items one page of an admin listing holds (`?limit=`): the accounts, an account's keys,
 * the usage board, the refused keys, the audit trail. A module of its own so the CLI's help quotes
 * the same numbers without loading the admin app.
 */
export const LISTING_LIMIT = Object.freeze({ minimum: 1, maximum: 100, default: 20 });
