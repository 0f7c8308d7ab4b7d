/**
 * The numbers of the admin input rules (`schemas.ts` states the rules with them). A module of its
 * own, free of the validator, so the CLI's help and the portal's pages can quote them cheaply.
 */
export const MAX_QUOTA = 1_000_000_000;
export const MAX_NAME_LENGTH = 100;
/** How long a rolled key may keep working at most (7 days), and by default (1 day). */
export const MAX_GRACE_PERIOD_SECONDS = 604_800;
export const DEFAULT_GRACE_PERIOD_SECONDS = 86_400;
