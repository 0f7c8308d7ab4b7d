/**
 * Imported first by `main.ts` (the gateway and each of its workers): tracing, when configured,
 * must start before express, http, ioredis and pg are loaded, or their instrumentations cannot
 * patch them.
 */
import { startTracingIfConfigured } from '../../../shared/src/tracing/start';

startTracingIfConfigured('gateway');
