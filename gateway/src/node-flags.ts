/**
 * Node's own flags the gateway is started with (`npm start`, `npm run start:gateway`, the bench;
 * a deployment that starts `node dist/gateway/src/main.js` itself sets them in NODE_OPTIONS,
 * docs/scaling.md). They must be given when the process starts: V8 sizes its heap then, and
 * `v8.setFlagsFromString` later changes nothing.
 *
 * `--max-semi-space-size=64` (MB): the young generation Node 24 gives itself on a machine with a
 * few GB (128 MB of new space), on Node 20 too, where it stops at a quarter of that. A request
 * allocates about 80 KB; under load the smaller young generation is scavenged four times as often
 * and copies what is still in flight each time. Measured on Node 20 (issue 29, `bench/gc.ts`,
 * docs/performance.md): collector pauses 70–82 → 57 µs per request; on Node 24 no change (its
 * default). The cost: up to 96 MB more resident memory under load on Node 20; the young
 * generation grows to it only when allocation keeps it busy.
 */
export const GATEWAY_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=64'];
