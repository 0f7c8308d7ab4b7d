/**
 * Imported first by `main.ts`: tracing, when configured, must start before express, http and pg
 * are loaded, or their instrumentations cannot patch them.
 */
import { startTracingIfConfigured } from '../../../shared/src/tracing/start';

startTracingIfConfigured('pets-service');
