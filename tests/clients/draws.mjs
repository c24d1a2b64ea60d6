// The npm retry libraries draw their own waits, with no real sleeping: a library's exported
// backoff function is called directly where it has one (node-retry's `timeouts`, axios-retry's
// `exponentialDelay`, got's `calculateRetryDelay`, ky's default `delay`); otherwise the library
// runs its own retry loop (p-retry, @smithy/util-retry's StandardRetryStrategy) with
// `setTimeout` replaced by one that records the delay and fires at once.
//
// Usage: node tests/clients/draws.mjs CLIENTS  ->  JSON on stdout: {cases: [{preset, link,
// clients: [[seconds, ...], ...]}], retryAfter: [{preset, header, seconds | null}]}
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const require = createRequire(import.meta.url);
const N = Number(process.argv[2] || 2000);
const resolve = (p) => pathToFileURL(require.resolve(p)).href;
const here = (p) => new URL(`../../node_modules/${p}`, import.meta.url).href;

// The libraries draw from Math.random; a seeded generator (sfc32) makes every run draw the same
// waits, so the KS checks give the same p-values every time.
function sfc32(a, b, c, d) {
  return () => {
    a |= 0; b |= 0; c |= 0; d |= 0;
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
}
Math.random = sfc32(0x9e3779b9, 0x243f6a88, 0xb7e15162, 20261203);
for (let i = 0; i < 20; i++) Math.random();

// Delays asked of setTimeout while `recording` is set, in ms.
let recorded = null;
const realSetTimeout = globalThis.setTimeout;
globalThis.setTimeout = (fn, ms, ...args) => {
  if (recorded) {
    recorded.push(ms);
    return realSetTimeout(fn, 0, ...args);
  }
  return realSetTimeout(fn, ms, ...args);
};

async function recordRun(run) {
  recorded = [];
  try {
    await run();
  } catch {
    // the last attempt's error, once the retries are used up
  }
  const out = recorded.map((ms) => ms / 1000);
  recorded = null;
  return out;
}

const times = async (n, f) => {
  const out = [];
  for (let i = 0; i < n; i++) out.push(await f());
  return out;
};

async function main() {
  const { default: pRetry } = await import(resolve('p-retry'));
  const nodeRetry = require('retry');
  const { exponentialDelay } = await import(here('axios-retry/dist/esm/index.js'));
  const { default: gotDelay } = await import(here('got/dist/source/core/calculate-retry-delay.js'));
  const { default: gotOptions } = await import(here('got/dist/source/core/options.js'));
  const { normalizeRetryOptions } = await import(here('ky/distribution/utils/normalize.js'));
  const { StandardRetryStrategy } = require('@smithy/util-retry');

  const fail = () => { throw new Error('503'); };
  const gotRetry = new gotOptions().retry;
  const kyRetry = normalizeRetryOptions({});
  const gotError = { name: 'HTTPError', options: { method: 'GET' }, response: { statusCode: 503 } };

  const smithy = async (attempts) => {
    const s = new StandardRetryStrategy(attempts);
    let token = await s.acquireInitialRetryToken('scope');
    return recordRun(async () => {
      for (;;) token = await s.refreshRetryTokenForRetry(token, { errorType: 'TRANSIENT' });
    });
  };

  const cases = [
    ['p-retry', 'preset=p-retry', () => recordRun(() => pRetry(fail, { retries: 10 }))],
    ['async-retry', 'preset=async-retry',
      async () => nodeRetry.timeouts({ retries: 10, randomize: true }).map((ms) => ms / 1000)],
    ['axios-retry-exp', 'preset=axios-retry-exp',
      async () => [1, 2, 3].map((n) => exponentialDelay(n) / 1000)],
    ['got', 'preset=got', async () => [1, 2].map((n) => gotDelay({
      attemptCount: n, retryOptions: gotRetry, error: gotError, computedValue: Infinity,
    }) / 1000)],
    ['got', 'preset=got&attempts=8', async () => [1, 2, 3, 4, 5, 6, 7].map((n) => gotDelay({
      attemptCount: n, retryOptions: { ...gotRetry, limit: 7 }, error: gotError, computedValue: Infinity,
    }) / 1000)],
    ['ky', 'preset=ky', async () => [1, 2].map((n) => kyRetry.delay(n) / 1000)],
    ['smithy-js', 'preset=smithy-js', () => smithy(3)],
    ['smithy-js', 'preset=smithy-js&attempts=11', () => smithy(11)],
  ];
  const out = { cases: [], retryAfter: [] };
  for (const [preset, link, draw] of cases) {
    out.cases.push({ preset, link, clients: await times(N, draw) });
  }
  // Retry-After: axios-retry's default noDelay uses it exactly; got uses it exactly unless it is
  // over maxRetryAfter (then no retry); ky exactly, for 413, 429 and 503.
  const { DEFAULT_OPTIONS: axiosDefaults } = await import(here('axios-retry/dist/esm/index.js'));
  for (const header of ['30', '90', '86400']) {
    const error = { response: { headers: { 'retry-after': header } } };
    out.retryAfter.push({ preset: 'axios-retry', header, seconds: axiosDefaults.retryDelay(1, error) / 1000 });
  }
  for (const [header, limit] of [['30', undefined], ['200', 120000]]) {
    const ms = Number(header) * 1000;
    const retryOptions = { ...gotRetry, maxRetryAfter: limit };
    const got = gotDelay({ attemptCount: 1, retryOptions, error: gotError, retryAfter: ms,
      computedValue: limit ?? Infinity });
    out.retryAfter.push({ preset: 'got', header, limit: limit ?? null, seconds: got === 0 ? null : got / 1000 });
  }
  process.stdout.write(JSON.stringify(out));
}

main().catch((e) => { console.error(e); process.exit(1); });
