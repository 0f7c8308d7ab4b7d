import type { IncomingMessage } from 'node:http';
import type { Attributes, Span } from '@opentelemetry/api';

/**
 * What the request path knows of tracing. Nothing here loads OpenTelemetry: with tracing off
 * (`OTEL_EXPORTER_OTLP_ENDPOINT` unset) `tracing` stays undefined and no SDK module is ever
 * required, so every caller pays one property read (`if (tracing)`), allocates nothing and calls
 * nothing. `sdk.ts` installs the runtime when it starts (docs/adr/0030-tracing-sdk-pieces.md).
 */
export interface TracingRuntime {
  /** The server span of an incoming request (undefined for a request not traced, e.g. /healthz). */
  serverSpanOf(req: IncomingMessage): Span | undefined;
  /** Names the request's route (`http.route`, and the server span's name) when its response ends. */
  setRoute(req: IncomingMessage, route: string): void;
  /** Runs `work` in a client span (a database statement), a child of the active span; outside any span, `work` alone. */
  inSpan<T>(name: string, attributes: Attributes, work: () => T): T;
  /** Runs `work` in a child span of the active one (spans started inside are its children); it ends when the promise settles. */
  inSpanAsync<T>(name: string, attributes: Attributes, work: (span: Span) => Promise<T>): Promise<T>;
  /** `trace_id`, `span_id` and `trace_flags` of the active span for a log line (an empty object outside any). */
  logFields(): object;
  /** Exports what is still buffered and stops (before the process exits). */
  shutdown(): Promise<void>;
}

/** The running SDK's offer, or undefined while tracing is off. */
export let tracing: TracingRuntime | undefined;

/** Called once by `sdk.ts`. */
export function installTracing(runtime: TracingRuntime): void {
  tracing = runtime;
}

/**
 * Flushes and stops the SDK if it runs; resolves at once when tracing is off. A collector that does
 * not answer costs at most `limitMs`: a stopping service must still exit within its 10 s.
 */
export async function stopTracing(limitMs = 2_000): Promise<void> {
  if (!tracing) return;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, limitMs)));
  await Promise.race([tracing.shutdown().catch(() => undefined), late]);
  clearTimeout(timer);
}
