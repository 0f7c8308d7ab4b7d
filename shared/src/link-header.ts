/**
 * Link header paging for the gateway's own readers (the CLI, the ops console): the client library's
 * parser, stated there once (the client is built and published from its own `src/` alone).
 */
export { nextLinkTarget } from '../../client/src/link-header';
