/**
 * Admin tokens and the names they stand for. Each operator may have a token of their own
 * (`ADMIN_TOKENS=name:token,...`); the name is the actor of the changes they make, in the audit
 * trail. `ADMIN_TOKEN`, the single shared token, stands for the actor `admin`.
 */
export interface AdminToken {
  name: string;
  token: string;
}

export const SHARED_TOKEN_ACTOR = 'admin';

/** Lower-case letters, digits, `.`, `_` and `-`, starting with a letter or digit: safe in logs, tables and URLs. */
export const ADMIN_TOKEN_NAME = /^[a-z0-9][a-z0-9._-]{0,31}$/;

/** Visible ASCII without the list's separator (the comma): what `Authorization: Bearer` can carry. */
export const ADMIN_TOKEN_TEXT = /^[\x21-\x2b\x2d-\x7e]+$/;
