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
 *
 * Measured again once Express's prototype swap was cut (ADR 0040), against 16 (Node's own on
 * Node 20), four rounds each: collector 6.1 against 11.7 µs per request on Node 20 and 18.8
 * against 24.1 on Node 24, for 88 and 78 MiB more peak RSS (273 against 185, 425 against 347).
 * Kept: CPU per request could not tell the two apart in those rounds (203–325 µs either way);
 * the collector's own time could, and issue 29 is about CPU, not memory.
 */
export const GATEWAY_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=64'];
