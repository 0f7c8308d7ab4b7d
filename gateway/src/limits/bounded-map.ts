/** The limiter's local caches are bounded the same way as every cache of the gateway. */
export { LruMap as BoundedMap } from '../accounts/lru-map';
