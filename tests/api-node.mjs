// The JavaScript API in Node (dist/retrylab.mjs): every function's output equals the CLI's
// `--format json` for golden links covering every scenario, and hostile input gets an Error
// with the CLI's one-line message. Run by scripts/test.sh after the page build.
import { execFileSync } from 'node:child_process';
import assert from 'node:assert/strict';

const lab = await import(new URL('../dist/retrylab.mjs', import.meta.url));

/** What the CLI prints for `args` (its JSON parsed), or its one-line error. */
function cli(args) {
  try {
    return { ok: JSON.parse(execFileSync('cargo', ['run', '-q', '-p', 'retrylab-cli', '--', ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })) };
  } catch (e) {
    return { err: String(e.stderr).trim().replace(/^retrylab: /, '') };
  }
}

let passed = 0;
const failures = [];
async function check(name, fn) {
  try { await fn(); passed++; console.log(`ok   ${name}`); }
  catch (e) { failures.push(name); console.log(`FAIL ${name}\n     ${String(e.message).split('\n').slice(0, 12).join('\n     ')}`); }
}

/** The API's Error message, for a call that must fail. */
async function message(call) {
  try { await call(); } catch (e) { assert.ok(e instanceof Error, `not an Error: ${e}`); return e.message; }
  throw new Error('accepted');
}

export const RUNS = [
  'preset=payments-none&duration=10s', 'preset=burst-lab', 'preset=occ-2015&runs=3',
  'preset=layers-333&p=0.5', 'preset=lost-nokey&duration=5s', 'preset=queue-spike-none&duration=15s',
  'preset=flaky-breaker&duration=5s',
];

await check('run: every scenario equals retrylab run --format json', async () => {
  for (const link of RUNS) assert.deepEqual(await lab.run(link), cli(['run', link, '--format', 'json']).ok, link);
});

await check('compare: one link with b. keys, and two links', async () => {
  const one = 'preset=payments-none&duration=10s&b.preset=payments-jitter&b.duration=10s';
  assert.deepEqual(await lab.compare(one), cli(['compare', one, '--format', 'json']).ok);
  const [a, b] = ['preset=burst-lab', 'preset=burst-lab&backoff=none'];
  assert.deepEqual(await lab.compare(a, b), cli(['compare', a, b, '--format', 'json']).ok);
});

await check('sweep: --param specs as an array or an object, and sweep. keys', async () => {
  const want = cli(['sweep', 'preset=burst-lab', '--param', 'backoff=none,exponential,full', '--format', 'json']).ok;
  assert.deepEqual(await lab.sweep('preset=burst-lab', ['backoff=none,exponential,full']), want);
  assert.deepEqual(await lab.sweep({ preset: 'burst-lab' }, { backoff: 'none,exponential,full' }), want);
  const link = 'preset=payments-jitter&duration=5s&sweep.base=100ms..500ms/200ms';
  assert.deepEqual(await lab.sweep(link), cli(['sweep', link, '--format', 'json']).ok);
});

await check('explain, schedule, amplify, analyze, keys, presets, lessons equal the CLI', async () => {
  for (const link of ['preset=chapter', 'preset=guide-700ms&waits=150ms', 'preset=aws-standard&outcomes=503,503,ok']) {
    assert.deepEqual(lab.explain(link), cli(['explain', link, '--format', 'json']).ok, link);
  }
  assert.deepEqual(lab.schedule('backoff=equal&attempts=5', 50), cli(['schedule', 'backoff=equal&attempts=5', '--clients', '50', '--format', 'json']).ok);
  assert.deepEqual(lab.amplify([3, 3, 3], 0.5), cli(['amplify', '3,3,3', '--p', '0.5', '--format', 'json']).ok);
  assert.deepEqual(lab.amplify('4,4'), cli(['amplify', '4,4', '--format', 'json']).ok);
  for (const what of ['keys', 'presets', 'lessons']) assert.deepEqual(lab[what](), cli([what, '--format', 'json']).ok, what);
  assert.deepEqual(lab.analyze('preset=twin-spike'), cli(['analyze', 'preset=twin-spike', '--format', 'json']).ok);
});

await check('an object of link keys is the link its keys say', async () => {
  assert.deepEqual(lab.explain({ preset: 'chapter', seed: 7 }), lab.explain('preset=chapter&seed=7'));
  assert.equal(lab.link({ seed: 7, preset: 'payments-none', idempotent: true }), lab.link('preset=payments-none&seed=7&idempotent=true'));
});

await check('bad links reject with the CLI\'s one-line message', async () => {
  for (const [call, args] of [
    [() => lab.run('scenario=lost&breaker=on'), ['run', 'scenario=lost&breaker=on']],
    [() => lab.run('scenario=burst&b.attempts=2'), ['run', 'scenario=burst&b.attempts=2']],
    [() => lab.compare('scenario=burst&clients=50&b.backoff=none&b.base=20ms'), ['compare', 'scenario=burst&clients=50&b.backoff=none&b.base=20ms']],
    [() => lab.sweep('attempts=3', ['attempts=2,3']), ['sweep', 'attempts=3', '--param', 'attempts=2,3']],
    [() => lab.explain('attempts=0'), ['explain', 'attempts=0']],
    [() => lab.analyze('preset=queue-spike-none'), ['analyze', 'preset=queue-spike-none']],
    [() => lab.amplify('3,3', -1), ['amplify', '3,3', '--p', '-1']],
    [() => lab.schedule('attempts=3', -5), ['schedule', 'attempts=3', '--clients', '-5']],
  ]) assert.equal(await message(call), cli(args).err, args.join(' '));
});

await check('hostile objects get a clear error, never a crash', async () => {
  const proto = JSON.parse('{"__proto__": "x", "preset": "chapter"}');
  assert.match(await message(() => lab.explain(proto)), /unknown key '__proto__'/);
  assert.match(await message(() => lab.explain({ seed: { nested: 1 } })), /^seed: expected a string, a number or true\/false, not an object/);
  assert.match(await message(() => lab.explain({ seed: [1, 2] })), /^seed: expected .* not an array/);
  assert.match(await message(() => lab.explain({ seed: NaN })), /^seed: 'NaN' is not a finite number/);
  assert.match(await message(() => lab.explain({ seed: 10n })), /^seed: expected .* not a bigint/);
  assert.match(await message(() => lab.explain({ preset: 'x'.repeat(1_000_000) })), /^link: longer than/);
  assert.match(await message(() => lab.explain('x'.repeat(1_000_000))), /^link: longer than/);
  // A Map, a Date or a boxed number is not an empty link: refused, naming its type.
  for (const [bad, kind] of [[new Map([['preset', 'chapter']]), 'a Map'], [new Date(0), 'a Date'], [new Number(3), 'a Number']]) {
    assert.match(await message(() => lab.explain(bad)), new RegExp(`^link: expected a link .* not ${kind}$`));
  }
  // A getter that throws is named by its key.
  const trap = { preset: 'chapter', get seed() { throw new Error('no seed today'); } };
  assert.match(await message(() => lab.explain(trap)), /^seed: reading the value threw: no seed today/);
  for (const bad of [42, null, undefined, [1, 2], () => 1]) {
    assert.match(await message(() => lab.run(bad)), /^link: expected a link \(a query string\) or an object of link keys/);
  }
  assert.match(await message(() => lab.run('preset=burst-lab', { onProgress: 5 })), /^onProgress: expected a function/);
  // The lab still answers after all of that.
  assert.equal(lab.link('preset=chapter'), 'v=2&preset=chapter');
});

await check('runs report progress and stop on an AbortSignal', async () => {
  const seen = [];
  await lab.run('preset=payments-none&duration=600s', { onProgress: f => seen.push(f) });
  assert.ok(seen.length > 0 && seen.every((f, i) => f >= 0 && f <= 1 && (i === 0 || f >= seen[i - 1])), `progress ${seen}`);
  const ac = new AbortController();
  const long = lab.run('preset=payments-none&duration=3600s', { signal: ac.signal });
  setTimeout(() => ac.abort(), 50);
  const err = await long.then(() => null, e => e);
  assert.equal(err && err.name, 'AbortError');
  assert.equal(await message(() => lab.run('preset=burst-lab', { signal: AbortSignal.abort() })), 'run: aborted');
  assert.equal((await lab.run('preset=burst-lab')).scenario, 'burst', 'the next run still runs');
});

console.log(`\n${passed} passed, ${failures.length} failed`);
process.exit(failures.length ? 1 : 0);
