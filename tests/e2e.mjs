// Browser end-to-end test: serves dist/ and drives the page in headless Chromium.
// Run by scripts/test.sh after `trunk build`. Screenshots go to tests/artifacts/.
import { chromium } from 'playwright-core';
import { spawn, execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import assert from 'node:assert/strict';

const PORT = Number(process.env.E2E_PORT || 8097);
const BASE = `http://127.0.0.1:${PORT}`;
const ARTIFACTS = new URL('./artifacts/', import.meta.url).pathname;
mkdirSync(ARTIFACTS, { recursive: true });

const server = spawn('python3', ['-m', 'http.server', String(PORT), '--bind', '127.0.0.1', '--directory', 'dist'], { stdio: 'ignore' });
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  // Playwright gives every launch a fresh, empty user-data-dir of its own.
});

let passed = 0;
const failures = [];
// E2E_ONLY=<regex> runs only the checks whose name matches (for working on one of them).
const ONLY = process.env.E2E_ONLY ? new RegExp(process.env.E2E_ONLY) : null;
async function check(name, fn) {
  if (ONLY && !ONLY.test(name)) return;
  try { await fn(); passed++; console.log(`ok   ${name}`); }
  catch (e) { failures.push(name); console.log(`FAIL ${name}\n     ${String(e.message).split('\n').join('\n     ')}`); }
}

async function waitForServer() {
  for (let i = 0; i < 100; i++) {
    try { const r = await fetch(BASE + '/'); if (r.ok) return; } catch {}
    await new Promise(r => setTimeout(r, 100));
  }
  throw new Error('the static server did not start');
}

async function openPage(query = '?v=2', scale = 1, viewport = { width: 1280, height: 1000 }) {
  const context = await browser.newContext({ viewport, deviceScaleFactor: scale });
  const page = await context.newPage();
  const errors = [];
  page.on('console', m => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', e => errors.push(String(e)));
  await page.goto(BASE + '/' + query);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 20000 });
  return { page, context, errors };
}

const renders = page => page.evaluate(() => Number(document.body.dataset.renders));
async function change(page, selector, value) {
  const before = await renders(page);
  const el = page.locator(selector);
  const tag = await el.evaluate(e => e.tagName);
  if (tag === 'SELECT') await el.selectOption(value);
  else { await el.fill(String(value)); await el.dispatchEvent('change'); }
  await page.waitForFunction(b => Number(document.body.dataset.renders) > b, before, { timeout: 5000 });
}
const attr = (page, sel, name) => page.locator(sel).getAttribute(name);
// What `retrylab run` prints for a link, as [label, value] rows.
function cliRows(link) {
  const out = execFileSync('cargo', ['run', '-q', '-p', 'retrylab-cli', '--', 'run', link], { encoding: 'utf8' });
  // The summary's rows, up to the first blank line (a layers link's stack follows it).
  return out.split('\n\n')[0].split('\n').slice(1).filter(l => l.trim()).map(l => l.trim().split(/\s{2,}/));
}
// Whether an element is on view with some text in it.
const shows = async (page, sel) => (await page.locator(sel).isVisible()) && (await page.locator(sel).innerText()).trim() !== '';
// What `retrylab answer` says a link asks and answers.
const cliAnswer = link => JSON.parse(execFileSync('cargo', ['run', '-q', '-p', 'retrylab-cli', '--', 'answer', link, '--format', 'json'], { encoding: 'utf8' }));
const tileRows = page => page.locator('#tiles .tile').evaluateAll(ts => ts.map(t => [t.querySelector('dt').textContent, t.querySelector('dd').textContent]));
async function openScenario(query) {
  const opened = await openPage(query);
  await opened.page.waitForSelector('#scenario-view[data-done="true"]', { timeout: 60000 });
  return opened;
}
// axe-core's serious and critical findings on the page as it stands, as "rule: target" lines.
const AXE = readFileSync(new URL('../node_modules/axe-core/axe.min.js', import.meta.url), 'utf8');
async function axeFindings(page) {
  await page.addScriptTag({ content: AXE });
  const found = await page.evaluate(async () => (await window.axe.run(document, { resultTypes: ['violations'] })).violations
    .filter(v => v.impact === 'serious' || v.impact === 'critical')
    .flatMap(v => v.nodes.map(n => `${v.id}: ${n.target.join(' ')}`)));
  return found;
}
const canvasPixels = page => page.evaluate(() => document.getElementById('schedule').toDataURL());
const stepTexts = page => page.locator('#trace-steps li').allInnerTexts();

try {
  await waitForServer();

  await check('the page loads with the defaults, draws the schedule and the trace, no console errors', async () => {
    const { page, context, errors } = await openPage();
    assert.equal(await attr(page, '#schedule', 'data-kind'), 'full');
    assert.equal(await attr(page, '#schedule', 'data-ceilings'), '100,200');
    assert.equal(await attr(page, '#schedule', 'data-dots'), '40', '2 retries x 20 clients');
    assert.equal(await page.locator('#trace-steps li').count(), 3);
    assert.equal(await attr(page, '#trace-outcome', 'data-stop'), 'success');
    assert.match(page.url(), /\?v=2$/);
    assert.deepEqual(errors, []);
    await context.close();
  });

  await check('changing the kind redraws the chart: exponential waits all sit on the ceiling', async () => {
    const { page, context, errors } = await openPage('?attempts=6');
    const before = await canvasPixels(page);
    const meansFull = (await attr(page, '#schedule', 'data-means')).split(',').map(Number);
    const ceilings = (await attr(page, '#schedule', 'data-ceilings')).split(',').map(Number);
    assert.deepEqual(ceilings, [100, 200, 400, 800, 1600]);
    assert.ok(meansFull.every((m, i) => m < ceilings[i]), 'full-jitter means sit below the ceilings');
    await change(page, '#backoff', 'exponential');
    assert.equal(await attr(page, '#schedule', 'data-kind'), 'exponential');
    assert.equal(await attr(page, '#schedule', 'data-means'), ceilings.join(','));
    assert.notEqual(await canvasPixels(page), before, 'the canvas changed');
    await change(page, '#backoff', 'equal');
    const meansEqual = (await attr(page, '#schedule', 'data-means')).split(',').map(Number);
    assert.ok(meansEqual.every((m, i) => m >= ceilings[i] / 2 && m <= ceilings[i]));
    assert.match(page.url(), /[?&]backoff=equal/);
    assert.deepEqual(errors, []);
    await context.close();
  });

  await check('changing attempts changes the step trace and the link', async () => {
    const { page, context, errors } = await openPage();
    await change(page, '#attempts', 2);
    const steps = await stepTexts(page);
    assert.equal(steps.length, 2);
    assert.equal(await attr(page, '#trace-outcome', 'data-stop'), 'attempts_used_up');
    assert.match(steps[1], /attempts: 2 of 2 used, 0 left/);
    assert.equal(await attr(page, '#schedule', 'data-ceilings'), '100');
    assert.match(page.url(), /\?v=2&attempts=2$/);
    assert.deepEqual(errors, []);
    await context.close();
  });

  await check('the chapter preset shows every subtraction of the deadline walk', async () => {
    const { page, context, errors } = await openPage();
    await change(page, '#preset', 'chapter');
    const steps = await stepTexts(page);
    assert.equal(steps.length, 3);
    assert.match(steps[0], /remaining 9\.9 s -> timeout = min\(3 s, 9\.9 s\) = 3 s/);
    assert.match(steps[1], /remaining 6\.8 s -> timeout = min\(3 s, 6\.8 s\) = 3 s/);
    assert.match(steps[2], /remaining 3\.6 s -> timeout = min\(3 s, 3\.6 s\) = 3 s/);
    assert.equal(await page.locator('#deadline').inputValue(), '10000');
    assert.equal(await page.locator('#outcomes').inputValue(), 'connect_timeout,connect_timeout,connect_timeout');
    assert.match(page.url(), /\?v=2&preset=chapter$/);
    // A drawn wait: the steps read as `retrylab explain` prints them, rounded for people, and
    // to the microsecond as `--exact` prints them once "Exact numbers" is ticked.
    const link = 'preset=chapter&waits=&seed=7';
    const cliSteps = extra => execFileSync('cargo', ['run', '-q', '-p', 'retrylab-cli', '--', 'explain', link, ...extra], { encoding: 'utf8' })
      .split('\n\n').slice(1, -1).map(b => b.split('\n').map(l => l.trim()).join('\n'));
    const drawn = await openPage('?' + link);
    const shown = async () => (await stepTexts(drawn.page)).map(t => t.split('\n').map(l => l.trim()).filter(Boolean).join('\n'));
    const people = await shown();
    assert.deepEqual(people, cliSteps([]));
    assert.match(people[0], /drawn uniformly in \[0 s, 100 ms\]: \d+(\.\d)? ms\n/);
    await drawn.page.check('#trace-exact');
    await drawn.page.waitForFunction(p => document.querySelector('#trace-steps li').innerText !== p, people[0]);
    assert.deepEqual(await shown(), cliSteps(['--exact']));
    assert.notDeepEqual(await shown(), people);
    assert.deepEqual(drawn.errors, []);
    await drawn.context.close();
    assert.deepEqual(errors, []);
    await context.close();
  });

  await check('a bad value names its field and the rest keeps working', async () => {
    const { page, context, errors } = await openPage('?preset=chapter');
    const before = await stepTexts(page);
    const url = page.url();
    await change(page, '#base', 50000);
    assert.match(await page.locator('#errors').innerText(), /^base: must not exceed cap/);
    assert.equal(await attr(page, '#base', 'aria-invalid'), 'true');
    assert.deepEqual(await stepTexts(page), before, 'the trace keeps the last good policy');
    assert.equal(page.url(), url, 'the link keeps the last good policy');
    // The next good edit applies, and the refused field shows the value actually in effect.
    await change(page, '#seed', 5);
    assert.equal(await attr(page, '#base', 'aria-invalid'), 'false');
    assert.equal(await page.locator('#base').inputValue(), '100');
    assert.match(page.url(), /seed=5/);
    await change(page, '#base', 50);
    assert.equal(await attr(page, '#errors', 'data-count'), '0');
    assert.match(page.url(), /base=50ms/);
    await change(page, '#outcomes', '503,418');
    assert.match(await page.locator('#errors').innerText(), /outcomes: unknown outcome '418'/);
    // A size past the cap is refused with the limit, and the page stays responsive.
    await change(page, '#outcomes', '503,503,ok');
    await change(page, '#attempts', 8);
    await change(page, '#clients', 10000);
    assert.match(await page.locator('#errors').innerText(), /clients: the schedule would draw 10000 clients x 7 retries = 70000 waits, over the limit of 50000/);
    assert.equal(await attr(page, '#schedule', 'data-clients'), '20', 'the last good schedule stays');
    assert.deepEqual(errors, []);
    await context.close();
  });

  await check('opening a link restores the state', async () => {
    const link = '?v=2&preset=guide-700ms&backoff=equal&waits=150ms&seed=9&clients=50';
    const { page, context, errors } = await openPage(link);
    assert.equal(await page.locator('#preset').inputValue(), 'guide-700ms');
    assert.equal(await page.locator('#backoff').inputValue(), 'equal');
    assert.equal(await page.locator('#waits').inputValue(), '150ms');
    assert.equal(await page.locator('#seed').inputValue(), '9');
    assert.equal(await page.locator('#clients').inputValue(), '50');
    assert.equal(await page.locator('#reserve').inputValue(), '100');
    assert.equal(await attr(page, '#schedule', 'data-clients'), '50');
    assert.equal(await attr(page, '#trace-outcome', 'data-stop'), 'success');
    const steps = await stepTexts(page);
    assert.match(steps[0], /150 ms wait \+ 400 ms next attempt \+ 100 ms reserve = 650 ms <= 700 ms remaining -> fits/);
    assert.ok(page.url().endsWith(link), `canonical link kept: ${page.url()}`);
    // The same link twice draws the same pixels.
    const again = await openPage(link);
    assert.equal(await canvasPixels(again.page), await canvasPixels(page));
    await again.context.close();
    assert.deepEqual(errors, []);
    await context.close();
  });

  await check('a link from a newer version is refused with a message naming v', async () => {
    const { page, context, errors } = await openPage('?v=3&attempts=4');
    assert.match(await page.locator('#errors').innerText(), /^v: link version 3 is newer/);
    assert.equal(await attr(page, '#trace-outcome', 'data-stop'), 'success', 'the defaults still run');
    assert.deepEqual(errors, []);
    await context.close();
  });

  await check('controls come from the key table; a control with no effect is disabled and says why', async () => {
    const { page, context, errors } = await openPage('?v=2&preset=payments-none');
    // Every key with a control has its label from the table.
    assert.equal(await page.getByLabel('Attempts (1 call + retries)').getAttribute('id'), 'attempts');
    assert.equal(await page.getByLabel('Retry budget').getAttribute('id'), 'budget');
    assert.equal(await page.locator('#outcomes').isDisabled(), true, 'outcomes do nothing in the outage scenario');
    // Folded into the closed "Not used by this scenario" group, its reason beside it.
    assert.equal(await page.locator('#outcomes-note').textContent(), 'outcomes: has no effect with scenario=outage: it applies to scenario=none');
    assert.equal(await page.locator('#attempts').isDisabled(), false);
    await page.screenshot({ path: join(ARTIFACTS, 'disabled.png') });
    await change(page, '#preset', 'chapter');
    assert.equal(await page.locator('#outcomes').isDisabled(), false);
    assert.equal(await page.locator('#outcomes-note').innerText(), '');
    assert.deepEqual(errors, []);
    await context.close();
  });

  await check('switching to no backoff resets base and says so; base is then disabled', async () => {
    const { page, context, errors } = await openPage('?v=2&base=10ms');
    await change(page, '#backoff', 'none');
    assert.match(await page.locator('#notices').innerText(), /^base reset: has no effect with backoff=none/);
    assert.equal(await page.locator('#base').isDisabled(), true);
    assert.match(await page.locator('#base-note').textContent(), /^base: has no effect with backoff=none/);
    assert.ok(page.url().endsWith('?v=2&backoff=none'), page.url());
    assert.equal(await attr(page, '#errors', 'data-count'), '0');
    await change(page, '#backoff', 'full');
    assert.equal(await page.locator('#base').isDisabled(), false);
    assert.equal(await page.locator('#notices').innerText(), '');
    assert.deepEqual(errors, []);
    await context.close();
  });

  await check('a link setting a key with no effect is refused by name; the rest opens', async () => {
    const { page, context, errors } = await openPage('?v=2&scenario=lost&breaker=on&seed=4');
    assert.match(await page.locator('#errors').innerText(), /breaker: has no effect with scenario=lost: it applies to scenario=outage, burst/);
    assert.equal(await page.locator('#seed').inputValue(), '4');
    // The address keeps what was written until the reader changes something.
    assert.ok(page.url().endsWith('?v=2&scenario=lost&breaker=on&seed=4'), page.url());
    await change(page, '#seed', '5');
    assert.ok(page.url().endsWith('?v=2&scenario=lost&seed=5'), page.url());
    assert.deepEqual(errors, []);
    await context.close();
  });

  await check('New seed draws a fresh seed into the link, and the link reproduces it', async () => {
    const { page, context, errors } = await openPage('?v=2&seed=1');
    const before = await canvasPixels(page);
    const r = await renders(page);
    await page.getByRole('button', { name: 'New seed' }).click();
    await page.waitForFunction(b => Number(document.body.dataset.renders) > b, r);
    const seed = await page.locator('#seed').inputValue();
    assert.notEqual(seed, '1');
    assert.ok(page.url().endsWith(`?v=2&seed=${seed}`), page.url());
    const pixels = await canvasPixels(page);
    assert.notEqual(pixels, before, 'another seed draws other waits');
    const again = await openPage(`?v=2&seed=${seed}`);
    assert.equal(await canvasPixels(again.page), pixels, 'the link with that seed draws the same');
    await again.context.close();
    assert.deepEqual(errors, []);
    await context.close();
  });

  await check('a scenario link opens its view: the timeline and the tiles, in the CLI\'s words', async () => {
    for (const preset of ['payments-jitter', 'burst-lab', 'lost-nokey', 'layers-333']) {
      const { page, context, errors } = await openScenario(`?v=2&preset=${preset}`);
      assert.equal(await page.locator('#schedule-view-section').isHidden(), true, 'the schedule gives way to the scenario');
      assert.ok(Number(await attr(page, '#timeline', 'data-bins')) > 0, `${preset}: the timeline has bins`);
      assert.deepEqual(await tileRows(page), cliRows(`preset=${preset}`), `${preset}: tiles equal retrylab run`);
      // Every tile says what its figure means, as text a phone shows.
      const helps = await page.locator('#tiles .tile').evaluateAll(ts => ts.map(t => t.querySelector('dd.help')?.innerText.trim() || ''));
      assert.ok(helps.length > 10 && helps.every(h => h.length > 10), `${preset}: a tile without its meaning`);
      assert.equal(await page.locator('#run-note').innerText(), '', `${preset}: no note of a published figure`);
      if (preset === 'payments-jitter') await page.screenshot({ path: join(ARTIFACTS, 'scenario-payments-jitter.png'), fullPage: true });
      // Layers and lost responses have a chart of their own under the timeline.
      const groups = { 'layers-333': '4', 'lost-nokey': '2' }[preset];
      assert.equal(await page.locator('#extra-chart').isHidden(), !groups, `${preset}: its own chart or none`);
      if (groups) {
        assert.equal(await attr(page, '#extra-chart', 'data-groups'), groups);
        await page.screenshot({ path: join(ARTIFACTS, `scenario-${preset}.png`), fullPage: true });
      }
      assert.deepEqual(errors, []);
      await context.close();
    }
  });

  await check('the queue and flaky servers: the spike shaded, the queue drawn, goodput beside throughput in the CLI\'s words', async () => {
    for (const [preset, queue] of [['queue-spike-none', 'true'], ['flaky-retries', 'false']]) {
      const { page, context, errors } = await openScenario(`?v=2&preset=${preset}`);
      const rows = await tileRows(page);
      assert.deepEqual(rows, cliRows(`preset=${preset}`), `${preset}: tiles equal retrylab run`);
      assert.ok(rows.some(([k]) => k === 'goodput (successes/s)') && rows.some(([k]) => k === 'throughput (work done/s)'), `${preset}: goodput and throughput tiles`);
      assert.equal(rows.some(([k]) => k === 'closed form 1-f^N'), queue === 'false', `${preset}: the closed forms are the flaky dependency's alone`);
      assert.equal(await attr(page, '#system-chart', 'data-queue'), queue);
      assert.equal(await attr(page, '#system-chart', 'data-capacity'), queue, 'the flaky server charts work done, not a share of capacity');
      assert.equal(await attr(page, '#system-chart', 'data-trigger'), preset === 'queue-spike-none' ? 'load spike' : 'none');
      await page.screenshot({ path: join(ARTIFACTS, `scenario-${preset}.png`), fullPage: true });
      assert.deepEqual(await axeFindings(page), []);
      assert.deepEqual(errors, []);
      await context.close();
    }
    // A key the server does not have is refused by name; the rest of the link opens.
    const { page, context } = await openPage('?v=2&preset=queue-spike-none&capacity=100');
    assert.match(await page.locator('#errors').innerText(), /capacity.*server=tick/);
    await context.close();
  });

  await check('the metastable presets: failures by reason, capacity used, the breaker\'s spells and the budget, read at a point', async () => {
    for (const [preset, flag, reason] of [['metastable-breaker', 'data-breaker', /breaker_open/], ['metastable-budget', 'data-budget', /budget_empty/]]) {
      const { page, context, errors } = await openScenario(`?v=2&preset=${preset}`);
      assert.deepEqual(await tileRows(page), cliRows(`preset=${preset}`), `${preset}: tiles equal retrylab run`);
      assert.equal(await page.locator('#system-chart').isHidden(), false);
      assert.equal(await attr(page, '#system-chart', flag), 'true');
      // Just after the 1 s outage at 2 s, requests fail for the preset's reason.
      const box = await page.locator('#timeline').boundingBox();
      let text = '';
      for (let x = box.width * 0.05; x < box.width * 0.3 && !reason.test(text); x += 2) {
        await page.mouse.move(box.x + x, box.y + box.height / 2);
        text = await page.locator('#timeline-readout').innerText();
      }
      assert.match(text, reason, `${preset}: the readout names the failures' reason`);
      if (preset === 'metastable-breaker') assert.match(text, /breaker (open|half-open)/);
      else assert.match(text, /budget [\d.]+ tokens/);
      await page.screenshot({ path: join(ARTIFACTS, `scenario-${preset}.png`), fullPage: true });
      assert.deepEqual(errors, []);
      await context.close();
    }
  });

  await check('exports: the CSV and the Markdown are the CLI\'s bytes, the PNG is the chart', async () => {
    const link = 'preset=lost-key&duration=20s';
    const { page, context, errors } = await openScenario(`?v=2&${link}`);
    const save = async id => {
      const [dl] = await Promise.all([page.waitForEvent('download'), page.click(`#${id}`)]);
      return { name: dl.suggestedFilename(), bytes: readFileSync(await dl.path()) };
    };
    const csv = await save('export-csv');
    assert.equal(csv.name, 'retrylab-lost.csv');
    const cli = args => execFileSync('cargo', ['run', '-q', '-p', 'retrylab-cli', '--', 'run', link, '--format', args]);
    assert.ok(csv.bytes.equals(cli('csv')), 'CSV byte-identical to retrylab run --format csv');
    const md = await save('export-md');
    assert.ok(md.bytes.equals(cli('markdown')), 'Markdown byte-identical to retrylab run --format markdown');
    const png = await save('export-png');
    assert.equal(png.bytes.subarray(1, 4).toString(), 'PNG');
    assert.deepEqual(errors, []);
    await context.close();
  });

  await check('the system controls edit the simulation; a bad one is named and the last good view stays', async () => {
    const { page, context, errors } = await openScenario('?v=2&preset=payments-jitter');
    assert.equal(await page.locator('#layers').isHidden(), true, 'outage has no layers setting');
    assert.equal(await page.locator('#outage').inputValue(), '5000');
    const before = await tileRows(page);
    await change(page, '#outage', 1000);
    await page.waitForSelector('#scenario-view[data-done="true"][data-stale="false"]', { timeout: 60000 });
    assert.ok(page.url().endsWith('?v=2&preset=payments-jitter&outage=1s'), page.url());
    assert.deepEqual(await tileRows(page), cliRows('preset=payments-jitter&outage=1s'));
    assert.notDeepEqual(await tileRows(page), before, 'a shorter outage changes the numbers');
    const good = await tileRows(page);
    await change(page, '#capacity', 0);
    assert.match(await page.locator('#errors').innerText(), /^capacity: '0' is not a number with at most 3 decimals in \[0\.001, 100000\]/);
    assert.deepEqual(await tileRows(page), good, 'the last good view stays');
    await change(page, '#scenario', 'layers');
    await page.waitForSelector('#scenario-view[data-done="true"][data-stale="false"]', { timeout: 60000 });
    assert.equal(await page.locator('#layers').isHidden(), false);
    assert.equal(await page.locator('#outage').isHidden(), true);
    assert.deepEqual(errors, []);
    await context.close();
  });

  await check('a control change rewrites only the controls whose state it changes; a refused value stays as typed until a preset', async () => {
    const { page, context, errors } = await openScenario('?v=2&preset=payments-jitter');
    // Every attribute written inside the key table's control groups, by element id.
    const watch = () => page.evaluate(() => {
      window.__written = [];
      window.__obs = new MutationObserver(rs => { for (const r of rs) window.__written.push(r.target.id || r.target.htmlFor || r.target.tagName); });
      for (const id of ['policy', 'schedule-view', 'system', 'request']) {
        window.__obs.observe(document.getElementById(id), { attributes: true, subtree: true, childList: true, characterData: true });
      }
    });
    const written = () => page.evaluate(() => { window.__obs.takeRecords().forEach(r => window.__written.push(r.target.id)); window.__obs.disconnect(); return [...new Set(window.__written)]; });
    await watch();
    await change(page, '#seed', 5);
    await page.waitForSelector('#scenario-view[data-done="true"][data-stale="false"]', { timeout: 60000 });
    assert.deepEqual(await written(page), [], 'a new seed changes no other control');
    // A refused value stays in its field as typed; a preset then writes every field again.
    await change(page, '#capacity', 0);
    assert.match(await page.locator('#errors').innerText(), /^capacity: /);
    assert.equal(await page.locator('#capacity').inputValue(), '0');
    assert.equal(await attr(page, '#capacity', 'aria-invalid'), 'true');
    await watch();
    await change(page, '#server', 'queue');
    const touched = await written(page);
    assert.ok(touched.includes('workers'), `the queue's settings come into view: ${touched}`);
    assert.ok(!touched.includes('base') && !touched.includes('attempts'), `controls the server leaves alone are not rewritten: ${touched}`);
    assert.equal(await page.locator('#workers').isVisible(), true);
    await change(page, '#preset', 'payments-none');
    assert.equal(await page.locator('#capacity').inputValue(), '50');
    assert.equal(await attr(page, '#capacity', 'aria-invalid'), 'false');
    assert.equal(await page.locator('#errors').innerText(), '');
    assert.equal(await page.locator('#server').inputValue(), 'tick', 'the preset resets the server');
    assert.equal(await page.locator('#workers').isHidden(), true);
    assert.deepEqual(errors, []);
    await context.close();
  });

  await check('Cancel stops a long run and the page stays responsive', async () => {
    const { page, context, errors } = await openPage('?v=2&preset=payments-none&duration=1h');
    await page.waitForSelector('#sim-cancel:not([hidden])', { timeout: 20000 });
    await page.click('#sim-cancel');
    assert.equal(await page.locator('#sim-status').innerText(), 'cancelled');
    assert.equal(await page.locator('#sim-cancel').isHidden(), true);
    // The page answers at once: a shorter run from a control finishes.
    await change(page, '#duration', 20000);
    await page.waitForSelector('#scenario-view[data-done="true"]', { timeout: 60000 });
    assert.deepEqual(await tileRows(page), cliRows('preset=payments-none&duration=20s'));
    assert.deepEqual(errors, []);
    await context.close();
  });

  await check('a compare link draws both sides and the before/after table exactly as retrylab compare', async () => {
    const link = 'preset=payments-none&b.preset=payments-jitter';
    const { page, context, errors } = await openScenario(`?v=2&${link}`);
    assert.equal(await attr(page, '#timeline', 'data-sides'), '2');
    const [cli, note] = execFileSync('cargo', ['run', '-q', '-p', 'retrylab-cli', '--', 'compare', link], { encoding: 'utf8' }).split('\n\nThe course');
    assert.equal(await page.locator('#compare-md').textContent(), cli + '\n');
    // The course's own figures stand beside the lab's, in the CLI's words.
    assert.equal(await page.locator('#course-note').innerText(), ('The course' + note).trim());
    assert.match(note, /289\.6x and 3 %.*1\.5x and 100 %/);
    // Which piece solves which part: the CLI's --steps rows, first A and last B.
    const steps = JSON.parse(execFileSync('cargo', ['run', '-q', '-p', 'retrylab-cli', '--', 'compare', link, '--steps', '--format', 'json'], { encoding: 'utf8' })).steps;
    const ladder = await page.locator('#steps-table tbody tr').evaluateAll(rs => rs.map(r => [...r.cells].map(c => c.textContent)));
    assert.deepEqual(ladder.map(r => r[0]), steps.map(s => s.step));
    const stepsText = execFileSync('cargo', ['run', '-q', '-p', 'retrylab-cli', '--', 'compare', link, '--steps'], { encoding: 'utf8' });
    const cliLadder = stepsText.split('Which piece solves')[1].split('\n').filter(l => l.startsWith('| ') && !l.startsWith('| step')).map(l => l.split(' | ')[2]);
    assert.deepEqual(ladder.map(r => r[2]), cliLadder);
    assert.equal(ladder[0][2], '195x');
    assert.ok(!(await page.locator('#compare tbody').innerText()).includes('`'), 'no raw backticks');
    assert.equal(await page.locator('#compare tbody tr').count(), cli.split('\n').filter(l => l.startsWith('| ') && !l.startsWith('| metric')).length);
    assert.match(await page.locator('#compare tbody').innerText(), /amplification\s+195x\s+1\.08x/);
    assert.ok(page.url().endsWith(`?v=2&${link}`), page.url());
    await page.screenshot({ path: join(ARTIFACTS, 'scenario-compare.png'), fullPage: true });
    assert.deepEqual(errors, []);
    await context.close();
  });

  await check('a compare link round-trips: edit side B, reload, the same view; a sweep from its control', async () => {
    const { page, context, errors } = await openScenario('?v=2&preset=payments-none&b.preset=payments-jitter');
    assert.equal(await page.locator('#side-b').inputValue(), 'preset=payments-jitter');
    await change(page, '#side-b', 'preset=payments-jitter&attempts=3');
    await page.waitForSelector('#scenario-view[data-done="true"][data-stale="false"]', { timeout: 60000 });
    const link = 'preset=payments-none&b.preset=payments-jitter&b.attempts=3';
    assert.ok(page.url().endsWith(`?v=2&${link}`), page.url());
    const cli = execFileSync('cargo', ['run', '-q', '-p', 'retrylab-cli', '--', 'compare', link], { encoding: 'utf8' });
    assert.equal(await page.locator('#compare-md').textContent(), cli);
    await page.reload();
    await page.waitForSelector('#scenario-view[data-done="true"]', { timeout: 60000 });
    assert.equal(await page.locator('#side-b').inputValue(), 'preset=payments-jitter&attempts=3');
    assert.equal(await page.locator('#compare-md').textContent(), cli, 'the reloaded link shows the same table');
    await change(page, '#side-b', 'attempts=0');
    assert.match(await page.locator('#errors').innerText(), /^b: b\.attempts: '0' is not a whole number in \[1, 1000\]/);
    assert.equal(await attr(page, '#side-b', 'aria-invalid'), 'true');
    assert.equal(await page.locator('#compare-md').textContent(), cli, 'the last good view stays');
    await change(page, '#side-b', '');
    assert.ok(page.url().endsWith('?v=2&preset=payments-none'), 'side B off: ' + page.url());
    assert.deepEqual(errors, []);
    await context.close();
    // The course project's second exercise, as a sweep from its control.
    const j = await openScenario('?v=2&preset=payments-jitter');
    await change(j.page, '#sweep-keys', 'base=100ms..2000ms/100ms');
    await j.page.waitForSelector('#scenario-view[data-done="true"][data-stale="false"]', { timeout: 60000 });
    assert.ok(j.page.url().endsWith('?v=2&preset=payments-jitter&sweep.base=100ms..2000ms/100ms'), j.page.url());
    assert.equal(await j.page.locator('#sweep-charts canvas').count(), 2);
    assert.match(await j.page.locator('#sim-status').innerText(), /^20 rows of /);
    assert.deepEqual(j.errors, []);
    await j.context.close();
  });

  await check('the storm: log axis, no long task while it runs, a new run marks the old result stale', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
    await context.addInitScript(() => {
      window.__longTasks = [];
      new PerformanceObserver(list => { for (const e of list.getEntries()) window.__longTasks.push([e.startTime, e.duration]); })
        .observe({ type: 'longtask', buffered: true });
    });
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', e => errors.push(String(e)));
    await page.goto(BASE + '/?v=2&preset=payments-none');
    await page.waitForSelector('body[data-ready="true"]');
    const ready = await page.evaluate(() => performance.now());
    await page.waitForSelector('#scenario-view[data-done="true"]', { timeout: 60000 });
    assert.deepEqual(await tileRows(page), cliRows('preset=payments-none'));
    assert.equal(await attr(page, '#scenario-view', 'data-exec'), 'worker', 'the run went to a Web Worker');
    assert.ok(page.workers().length >= 1, 'a worker is running');
    await page.screenshot({ path: join(ARTIFACTS, 'scenario-payments-none.png'), fullPage: true });
    // A control change starts a new run; until it ends the old result is marked stale.
    await change(page, '#attempt_timeout', 2000);
    await page.waitForSelector('#scenario-view[data-done="true"]', { timeout: 60000 });
    assert.equal(await attr(page, '#scenario-view', 'data-stale'), 'false');
    // No task over 50 ms while a run is in flight: every long task that ends inside a run's
    // flight (from its start to its last result arriving). Drawing the result afterwards is
    // measured by scripts/bench-page.mjs, not asserted here.
    const flights = (await attr(page, '#scenario-view', 'data-flights')).split(' ').map(f => f.split(',').map(Number));
    assert.equal(flights.length, 2, 'two runs');
    const long = await page.evaluate(t => window.__longTasks.filter(([s]) => s > t), ready);
    const during = long.filter(([s, d]) => d > 50 && flights.some(([a, b]) => s + d > a && s + d < b));
    assert.deepEqual(during, [], 'no task over 50 ms while a run is in flight');
    assert.deepEqual(errors, []);
    await context.close();
  });

  await check('the 2015 study\'s one run: exponential backoff\'s write calls cluster, full jitter\'s spread, each on its own time axis; links to the whole study', async () => {
    const link = 'preset=occ-2015&runs=1&backoff=exponential&b.backoff=full';
    const { page, context, errors } = await openScenario(`?v=2&${link}`);
    assert.equal(await page.locator('#occ-links').isHidden(), false);
    assert.ok(Number(await attr(page, '#timeline', 'data-bins')) > 100, 'write calls over time, in 10 ms bins');
    const cli = execFileSync('cargo', ['run', '-q', '-p', 'retrylab-cli', '--', 'compare', link], { encoding: 'utf8' });
    assert.equal(await page.locator('#compare-md').textContent(), cli);
    // Each side's write calls on its own time axis, captioned with that side's run in the CLI's words.
    assert.equal(await page.locator('#extra-chart').isHidden(), false);
    assert.equal(await attr(page, '#extra-chart', 'data-panels'), '2');
    const said = await attr(page, '#extra-chart', 'aria-label');
    for (const [side, one] of [['A', 'preset=occ-2015&runs=1&backoff=exponential'], ['B', 'preset=occ-2015&runs=1&backoff=full']]) {
      const rows = Object.fromEntries(cliRows(one));
      const kind = one.split('backoff=')[1];
      assert.ok(said.includes(`${side}: backoff=${kind}, first run: ${rows.attempts} write calls, the last answered at ${rows.completion}`), said);
    }
    await page.screenshot({ path: join(ARTIFACTS, 'scenario-occ-one-run.png'), fullPage: true });
    assert.deepEqual(errors, []);
    await context.close();
  });

  await check('the 2015 study runs in the page across workers: five lines per chart, the 2015 figures beside them; screenshot', async () => {
    const link = 'preset=occ-2015&sweep.clients=10..190/10&sweep.backoff=none,exponential,full,equal,decorrelated';
    const { page, context, errors } = await openPage(`?v=2&${link}`);
    await page.waitForSelector('#scenario-view[data-done="true"]', { timeout: 120000 });
    assert.equal(await page.locator('#sweep-section').isHidden(), false);
    assert.equal(await page.locator('#timeline').isHidden(), true, 'no timeline for a sweep');
    assert.equal(await page.locator('#sweep-charts canvas').count(), 2, 'write calls and completion time');
    assert.equal(await attr(page, '#sweep-chart-0', 'data-lines'), '5');
    assert.match(await page.locator('#sim-status').innerText(), /^95 rows of \?v=2&preset=occ-2015 sweeping clients and backoff, mean of 100 runs each/);
    const md = await page.locator('#sweep-md').textContent();
    assert.equal(md.split('\n').filter(l => /^\| \d+ \|/.test(l)).length, 95);
    // Pointing at 100 clients reads every kind's numbers and the 2015 simulator's.
    const box = await page.locator('#sweep-chart-0').boundingBox();
    let text = '';
    for (let x = box.width * 0.3; x < box.width * 0.8 && !text.startsWith('clients=100:'); x += 4) {
      await page.mouse.move(box.x + x, box.y + box.height / 2);
      text = await page.locator('#sweep-readout').innerText();
    }
    // The preset's 100 runs give each figure its 95% interval beside it.
    assert.match(text, /^clients=100: none: \d+ attempts, [\d.]+ s \([\d.]+ s-[\d.]+ s\) completion, 2015: 2421 calls, 2.03 s; exponential: /);
    assert.ok(page.url().endsWith(`?v=2&${link}`), page.url());
    await page.screenshot({ path: join(ARTIFACTS, 'sweep-2015-study.png'), fullPage: true });
    assert.deepEqual(errors, []);
    await context.close();
  });

  await check('a sweep link gives retrylab sweep\'s table and CSV, byte for byte; a bad sweep is named', async () => {
    const link = 'preset=payments-jitter&duration=20s&sweep.base=100ms..900ms/200ms&sweep.backoff=full,equal';
    const { page, context, errors } = await openScenario(`?v=2&${link}`);
    const cli = args => execFileSync('cargo', ['run', '-q', '-p', 'retrylab-cli', '--', 'sweep', link, ...args]);
    assert.equal(await page.locator('#sweep-md').textContent(), cli([]).toString());
    const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#export-csv')]);
    assert.equal(dl.suggestedFilename(), 'retrylab-sweep.csv');
    assert.ok(readFileSync(await dl.path()).equals(cli(['--format', 'csv'])), 'CSV byte-identical to retrylab sweep --format csv');
    assert.equal(await attr(page, '#sweep-chart-0', 'data-lines'), '2');
    await page.screenshot({ path: join(ARTIFACTS, 'sweep-base.png'), fullPage: true });
    const bad = await openPage('?v=2&preset=payments-jitter&sweep.base=1s..9s/1s');
    assert.match(await bad.page.locator('#errors').innerText(), /^sweep: sweep\.base: base=6s: base: must not exceed cap/);
    await bad.page.waitForSelector('#scenario-view[data-done="true"]', { timeout: 60000 });
    assert.equal(await bad.page.locator('#run-section').isHidden(), false, 'the rest of the link opens as one run');
    await bad.context.close();
    assert.deepEqual(errors, []);
    await context.close();
  });

  await check('the deadline timeline draws the 700 ms refusal and points at the text steps, and they at it', async () => {
    const g = await openPage('?v=2&preset=guide-700ms');
    assert.equal(await attr(g.page, '#deadline-chart', 'data-refused'), 'true', 'the retry that did not fit is drawn');
    assert.equal(await attr(g.page, '#deadline-chart', 'data-attempts'), '1');
    await g.page.screenshot({ path: join(ARTIFACTS, 'deadline-guide-700ms.png'), fullPage: true });
    assert.deepEqual(g.errors, []);
    await g.context.close();
    const { page, context, errors } = await openPage('?v=2&preset=chapter');
    assert.equal(await attr(page, '#deadline-chart', 'data-refused'), 'false');
    await page.hover('#trace-steps li:nth-child(2) h3');
    assert.equal(await attr(page, '#trace-steps li:nth-child(2)', 'data-highlight'), 'true', 'pointing at a step rings its bar');
    const before = await page.evaluate(() => document.getElementById('deadline-chart').toDataURL());
    // Pointing at the chart's rows highlights their steps, one at a time.
    const box = await page.locator('#deadline-chart').boundingBox();
    const lit = new Set();
    for (let y = box.y + 5; y < box.y + box.height - 5; y += 4) {
      await page.mouse.move(box.x + box.width / 2, y);
      const on = await page.locator('#trace-steps li[data-highlight="true"]').evaluateAll(ls => ls.map(l => l.dataset.attempt));
      assert.ok(on.length <= 1);
      on.forEach(a => lit.add(a));
    }
    assert.deepEqual([...lit].sort(), ['1', '2', '3'], 'each attempt row lights its own step');
    // Stepping walks the same steps the text lists: attempt 1 only, then 2, the later ones dimmed.
    await page.mouse.move(0, 0);
    await page.click('#deadline-start');
    const first = await page.evaluate(() => document.getElementById('deadline-chart').toDataURL());
    assert.equal(await attr(page, '#trace-steps li:nth-child(1)', 'data-highlight'), 'true');
    assert.equal(await attr(page, '#trace-steps li:nth-child(2)', 'data-later'), 'true');
    await page.click('#deadline-step');
    assert.equal(await attr(page, '#trace-steps li:nth-child(2)', 'data-highlight'), 'true');
    assert.equal(await attr(page, '#trace-steps li:nth-child(3)', 'data-later'), 'true');
    await page.click('#deadline-back');
    assert.equal(await page.evaluate(() => document.getElementById('deadline-chart').toDataURL()), first, 'Back returns to the same picture');
    assert.notEqual(await page.evaluate(() => document.getElementById('deadline-chart').toDataURL()), before);
    assert.deepEqual(errors, []);
    await context.close();
  });

  await check('a lesson asks first and runs after: the guess lives in the link and the lab\'s answer is shown beside it', async () => {
    const { page, context, errors } = await openPage();
    await page.selectOption('#lesson-menu', 'layers-three');
    await page.waitForFunction(() => location.search.includes('lesson=layers-three'));
    assert.ok(page.url().endsWith('?v=2&preset=layers-333&lesson=layers-three'), page.url());
    assert.match(await page.locator('#sim-status').innerText(), /^Answer the question first/);
    assert.equal(await attr(page, '#scenario-view', 'data-done'), 'false', 'nothing runs before the guess');
    await page.fill('#lesson-guess', '27');
    await page.click('#lesson-commit');
    await page.waitForSelector('#scenario-view[data-done="true"]', { timeout: 60000 });
    // Once the run is drawn, its figures are on screen.
    await page.waitForFunction(() => { const r = document.getElementById('run-summary').getBoundingClientRect(); return r.top >= -1 && r.top < innerHeight / 2; });
    assert.ok(page.url().endsWith('&lesson=layers-three&guess=27'), page.url());
    await page.waitForFunction(() => /The lab:/.test(document.getElementById('lesson-result').textContent));
    assert.equal(await page.locator('#lesson-result').innerText(), 'Your guess: 27 calls. The lab: 27 calls. Right.');
    await page.screenshot({ path: join(ARTIFACTS, 'lesson-layers-three.png'), fullPage: true });
    await page.reload();
    await page.waitForSelector('#scenario-view[data-done="true"]', { timeout: 60000 });
    await page.waitForFunction(() => /The lab:/.test(document.getElementById('lesson-result').textContent));
    assert.equal(await page.locator('#lesson-guess').inputValue(), '27', 'the guess comes back with the link');
    // A policy-only lesson hides its trace until the guess is in; a wrong guess is told so.
    await page.selectOption('#lesson-menu', 'deadline-walk');
    await page.waitForFunction(() => location.search.includes('lesson=deadline-walk'));
    assert.equal(await page.locator('#trace-view').isHidden(), true);
    // Its place in the right column says what will appear there, not a blank.
    assert.match(await page.locator('#trace-waiting').innerText(), /appears here once you commit a guess/);
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.fill('#lesson-guess', '6800');
    await page.click('#lesson-commit');
    await page.waitForFunction(() => /The lab:/.test(document.getElementById('lesson-result').textContent));
    assert.equal(await page.locator('#lesson-result').innerText(), 'Your guess: 6800 ms. The lab: 3600 ms. Not quite: look again at the view.');
    assert.equal(await page.locator('#trace-view').isHidden(), false, 'the trace is shown once guessed');
    assert.equal(await page.locator('#trace-waiting').isHidden(), true);
    // Commit brings the answer's figure, the steps of the traced request, on screen.
    await page.waitForFunction(() => { const r = document.getElementById('trace-steps').getBoundingClientRect(); return r.top >= -1 && r.top < innerHeight / 2; });
    await change(page, '#lesson-guess', 'a;b');
    assert.match(await page.locator('#errors').innerText(), /^guess: 'a;b' is not a guess/);
    assert.equal(await page.locator('#lesson-guess').inputValue(), 'a;b', 'a refused guess stays as typed');
    // The answer as a person writes it, in another unit: right.
    await page.fill('#lesson-guess', '3.6 s');
    await page.click('#lesson-commit');
    await page.waitForFunction(() => /Right\.$/.test(document.getElementById('lesson-result').textContent));
    assert.equal(await page.locator('#lesson-result').innerText(), 'Your guess: 3.6 s. The lab: 3600 ms. Right.');
    assert.equal(await page.locator('#lesson-unit').innerText(), 'ms');
    // The cheat sheet's first statement: the answer is read from the sweep's rows.
    await page.selectOption('#lesson-menu', 'burst-immediate');
    await page.waitForFunction(() => location.search.includes('lesson=burst-immediate'));
    await page.fill('#lesson-guess', 'yes');
    await page.click('#lesson-commit');
    await page.waitForFunction(() => /The lab:/.test(document.getElementById('lesson-result').textContent), null, { timeout: 60000 });
    assert.equal(await page.locator('#lesson-result').innerText(), 'Your guess: yes. The lab: yes (attempts: 5000, 5000). Right.');
    await page.screenshot({ path: join(ARTIFACTS, 'lesson-burst-immediate.png'), fullPage: true });
    assert.deepEqual(errors, []);
    await context.close();
  });

  await check('idempotency step by step: one checkout through a lost answer charges twice without a key, once with one', async () => {
    const { page, context, errors } = await openScenario('?v=2&preset=lost-nokey');
    assert.equal(await page.locator('#ledger-section').isHidden(), false);
    assert.ok(Number(await attr(page, '#ledger-a-total', 'data-charges')) > 1, 'more than one durable charge without a key');
    assert.equal(await attr(page, '#ledger-b-total', 'data-charges'), '1', 'one with a key');
    await page.click('#ledger-start');
    assert.equal(await page.locator('#ledger-a li').count(), 1);
    await page.click('#ledger-step');
    await page.click('#ledger-step');
    await page.click('#ledger-step');
    assert.match(await page.locator('#ledger-a li').nth(2).innerText(), /charge #1 committed on the ledger; its answer is lost/);
    await page.click('#ledger-back');
    assert.equal(await page.locator('#ledger-b li').count(), 3);
    await page.click('#ledger-reset');
    assert.match(await page.locator('#ledger-b').innerText(), /409_in_flight|replays the first answer/);
    await page.screenshot({ path: join(ARTIFACTS, 'ledger-lost-nokey.png'), fullPage: true });
    assert.deepEqual(errors, []);
    await context.close();
  });

  await check('a retry budget step by step: ten successes at +0.1 make exactly one token; the budget refuses a retry', async () => {
    const { page, context, errors } = await openPage('?v=2&budget=bucket&bucket_max=2&bucket_refill=0.1&budget_start=0');
    const rows = () => page.locator('#budget-table tbody tr').evaluateAll(rs => rs.map(r => [...r.cells].map(c => c.textContent)));
    const all = await rows();
    assert.equal(all[9][4], '1.000', 'exactly one token after ten successes, never 0.999');
    assert.ok(all.some(r => r[2] === 'refused'), 'a refused retry');
    await page.click('#budget-start');
    assert.equal((await rows()).length, 1);
    await page.click('#budget-step');
    assert.equal((await rows()).length, 2);
    assert.deepEqual(await axeFindings(page), []);
    await page.screenshot({ path: join(ARTIFACTS, 'budget-walk.png'), fullPage: true });
    // A ratio budget walks out of its window: Finagle's 20% + 10/s over 10 s ends on its floor.
    await page.goto(`${BASE}/?v=2&budget=ratio`);
    await page.waitForSelector('#budget-table tbody tr');
    const ratio = await rows();
    const moved = ratio.filter(r => /^the window moves on: what came before \d+ ms no longer counts$/.test(r[1]));
    assert.equal(moved.length, 2, JSON.stringify(ratio.slice(-3)));
    assert.equal(ratio[ratio.length - 1][4], '100.000', 'the floor: 10 retries/s over 10 s');
    assert.deepEqual(errors, []);
    await context.close();
  });

  await check('the amplification tree steps call by call and level by level; its numbers are retrylab amplify\'s', async () => {
    const { page, context, errors } = await openScenario('?v=2&preset=layers-333');
    const counts = () => attr(page, '#tree', 'data-counts');
    const pixels = () => page.evaluate(() => document.getElementById('tree').toDataURL());
    assert.equal(await counts(), '1,3,9,27', 'p = 1: the whole worst case');
    await page.click('#tree-start');
    assert.equal(await counts(), '1,0,0,0');
    const start = await pixels();
    await page.click('#tree-step');
    await page.click('#tree-step');
    assert.equal(await counts(), '1,1,1,0');
    assert.match(await page.locator('#tree-readout').innerText(), /^Call 3 of 40: layer 2 -> layer 3, attempt 1: failed\./);
    await page.click('#tree-back');
    await page.click('#tree-back');
    assert.equal(await pixels(), start, 'Back after Step returns to the same picture');
    // The arrow keys step too.
    await page.focus('#tree');
    for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowRight');
    assert.equal(await counts(), '1,1,1,1');
    await page.selectOption('#tree-mode', 'level');
    await page.click('#tree-step');
    assert.equal(await counts(), '1,3,0,0', 'one level at a time');
    await page.screenshot({ path: join(ARTIFACTS, 'tree-layers-333.png'), fullPage: true });
    await context.close();
    for (const [layers, p] of [['4,4,4', '1'], ['2,3,4', '0.5']]) {
      const t = await openScenario(`?v=2&preset=layers-333&layers=${layers}&p=${p}`);
      const cli = execFileSync('cargo', ['run', '-q', '-p', 'retrylab-cli', '--', 'amplify', layers, '--p', p], { encoding: 'utf8' });
      const rows = await t.page.locator('#tree-table tbody tr').evaluateAll(rs => rs.map(r => [...r.cells].map(c => c.textContent)));
      const worst = cli.match(/= (\d+) bottom calls per user request/)[1];
      const expected = cli.match(/expected at p = [\d.]+: ([\d.]+) bottom calls/)[1];
      assert.equal(rows[rows.length - 1][2], worst, `${layers}: worst case as retrylab amplify`);
      assert.equal(rows[rows.length - 1][3], expected, `${layers}: expected at p = ${p} as retrylab amplify`);
      assert.equal(rows[rows.length - 1][4], cli.match(/worst case (\d+), expected/)[1], 'the fix');
      assert.deepEqual(t.errors, []);
      await t.context.close();
    }
    assert.deepEqual(errors, []);
  });

  await check('the offline file opens from disk, draws, and runs a scenario', async () => {
    const file = new URL('../dist-offline/retrylab.html', import.meta.url).href;
    const context = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', e => errors.push(String(e)));
    await page.goto(`${file}?v=2&preset=chapter`);
    await page.waitForSelector('body[data-ready="true"]', { timeout: 30000 });
    assert.equal(await attr(page, '#schedule', 'data-kind'), 'full');
    assert.equal(await page.locator('#trace-steps li').count(), 3);
    await page.goto(`${file}?v=2&preset=payments-jitter`);
    await page.waitForSelector('#scenario-view[data-done="true"]', { timeout: 60000 });
    assert.deepEqual(await tileRows(page), cliRows('preset=payments-jitter'), 'the same numbers as the CLI, from disk');
    assert.equal(await attr(page, '#scenario-view', 'data-exec'), 'worker', 'the worker starts from the file too');
    await page.screenshot({ path: join(ARTIFACTS, 'offline-file.png'), fullPage: true });
    assert.deepEqual(errors, []);
    await context.close();
  });

  await check('the charts have tables with their numbers: the schedule\'s waits, the timeline\'s bins, the bars in words', async () => {
    const { page, context, errors } = await openPage('?v=2&attempts=4&clients=5');
    await page.click('#schedule-box summary');
    await page.waitForSelector('#schedule-table tbody tr'); // filled on the details' toggle event
    const rows = await page.locator('#schedule-table tbody tr').evaluateAll(rs => rs.map(r => [...r.cells].map(c => c.textContent)));
    assert.equal(rows.length, 6, 'five clients and the ceiling');
    assert.deepEqual(rows[5], ['ceiling', '100', '200', '400']);
    const means = (await attr(page, '#schedule', 'data-means')).split(',').map(Number);
    const mean1 = rows.slice(0, 5).reduce((s, r) => s + Number(r[1]), 0) / 5;
    assert.ok(Math.abs(mean1 - means[0]) < 1e-3, 'the table holds the drawn waits (the mean is kept to the microsecond)');
    await context.close();
    const s = await openScenario('?v=2&preset=lost-nokey');
    await s.page.click('#rates-box summary');
    await s.page.waitForSelector('#rates-table tbody tr');
    const bins = await s.page.locator('#rates-table tbody tr').count();
    assert.equal(String(bins), await attr(s.page, '#timeline', 'data-bins'), 'one row per bin');
    assert.match(await attr(s.page, '#extra-chart', 'aria-label'), /no key \(key=false, idempotent=true\): 127 duplicates in 1200 checkouts/);
    assert.deepEqual(errors.concat(s.errors), []);
    await s.context.close();
  });

  await check('axe-core finds no serious or critical problem in any view', async () => {
    for (const q of ['', '?v=2&preset=chapter', '?v=2&preset=payments-none', '?v=2&preset=payments-none&b.preset=payments-jitter',
      '?v=2&preset=layers-333', '?v=2&preset=lost-nokey', '?v=2&preset=layers-333&p=0.5', '?v=2&preset=burst-lab&sweep.backoff=none,full,equal']) {
      const { page, context, errors } = await openPage(q);
      if (q) await page.waitForSelector('#scenario-view[data-done="true"], #trace-view:not([hidden])', { timeout: 60000 });
      assert.deepEqual(await axeFindings(page), [], `axe on ${q || 'the defaults'}`);
      assert.deepEqual(errors, []);
      await context.close();
    }
  });

  await check('on a phone (375 px) the view comes first, its chart on the first screen, the settings one tap away; nothing is wider than the screen; screenshots', async () => {
    const context = await browser.newContext({ viewport: { width: 375, height: 800 }, deviceScaleFactor: 2 });
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', e => errors.push(String(e)));
    const views = [
      ['phone-compare', '?v=2&preset=payments-none&b.preset=payments-jitter'],
      ['phone-sweep', '?v=2&preset=occ-2015&runs=2&sweep.clients=10..50/20&sweep.backoff=none,exponential,full'],
      ['phone-layers', '?v=2&preset=layers-333'],
      ['phone-twin', '?v=2&preset=twin-spike'],
      ['phone-tune', '?v=2&preset=payments-jitter&tune=on'],
    ];
    for (const [name, link] of views) {
      await page.goto(BASE + '/' + link);
      await page.waitForSelector('#scenario-view[data-done="true"]', { timeout: 60000 });
      const m = await page.evaluate(() => ({
        scroll: document.documentElement.scrollWidth,
        screen: innerWidth,
        controls: document.getElementById('policy').getBoundingClientRect().top,
        view: document.getElementById('scenario-view').getBoundingClientRect().top,
        chart: [...document.querySelectorAll('#scenario-view canvas')].find(c => c.offsetParent)?.getBoundingClientRect().top,
        canvases: [...document.querySelectorAll('#scenario-view canvas')].filter(c => c.offsetParent)
          .map(c => [c.id || c.parentElement.id, c.getBoundingClientRect().right, c.clientHeight]),
      }));
      assert.ok(m.scroll <= m.screen, `${name}: the page scrolls sideways, ${m.scroll} px on a ${m.screen} px screen`);
      // The comparison's tables: every number on the screen, no key broken mid-word.
      const cells = await page.evaluate(() => ({
        off: [...document.querySelectorAll('#compare-section td, #compare-section th')]
          .filter(c => c.getClientRects().length && c.getBoundingClientRect().right > innerWidth + 0.5).map(c => c.textContent),
        broken: [...document.querySelectorAll('#compare-changes td:first-child, #steps-table td:first-child')]
          .filter(c => c.getClientRects().length && c.getBoundingClientRect().height > 1.6 * (parseFloat(getComputedStyle(c).lineHeight) || 1.2 * parseFloat(getComputedStyle(c).fontSize)))
          .map(c => c.textContent),
      }));
      assert.deepEqual(cells.off, [], `${name}: cells off the screen`);
      assert.deepEqual(cells.broken, [], `${name}: keys broken over lines`);
      assert.ok(m.view < m.controls, `${name}: the view comes before the settings`);
      assert.ok(m.chart < 800, `${name}: the first chart starts on the first screen, at ${m.chart} px`);
      assert.equal(await page.locator('.to-settings').isVisible(), true, `${name}: the settings are one tap away`);
      assert.ok(m.canvases.length >= 1, `${name}: a chart is drawn`);
      for (const [id, right, height] of m.canvases) {
        assert.ok(right <= m.screen, `${name}: ${id} ends at ${right} px`);
        // A narrow canvas is taller, so its wrapped caption and legend leave the plot room (the
        // call tree has neither).
        if (id !== 'tree') assert.ok(height >= 380, `${name}: ${id} is ${height} px high`);
      }
      await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
    }
    assert.deepEqual(errors, []);
    await context.close();
  });

  await check('the chart is sharp at devicePixelRatio 2, hover follows one client; screenshot', async () => {
    const { page, context, errors } = await openPage('?v=2&attempts=7&backoff=full&base=10ms&cap=2s&clients=30&seed=7', 2);
    const size = await page.evaluate(() => { const c = document.getElementById('schedule'); return [c.width, c.clientWidth, c.height, c.clientHeight]; });
    assert.equal(size[0], size[1] * 2);
    assert.equal(size[2], size[3] * 2);
    // Point at the highest dot of the last retry: the readout names a client and its waits.
    const box = await page.locator('#schedule').boundingBox();
    let hit = false;
    for (let x = box.width * 0.8; x < box.width * 0.98 && !hit; x += 3) {
      for (let y = box.height * 0.1; y < box.height * 0.9 && !hit; y += 4) {
        await page.mouse.move(box.x + x, box.y + y);
        hit = /^client \d+: waits /.test(await page.locator('#readout').innerText());
      }
    }
    assert.ok(hit, 'hovering a dot shows that client\'s waits');
    await page.screenshot({ path: join(ARTIFACTS, 'lab.png'), fullPage: true });
    assert.deepEqual(errors, []);
    await context.close();
  });

  await check('window.retrylab: runs in workers give the CLI\'s JSON; hostile objects get the CLI\'s errors', async () => {
    const { page, context, errors } = await openPage('?v=2');
    const cliJson = args => JSON.parse(execFileSync('cargo', ['run', '-q', '-p', 'retrylab-cli', '--', ...args, '--format', 'json'], { encoding: 'utf8' }));
    for (const link of ['preset=burst-lab', 'preset=payments-none&duration=10s', 'preset=occ-2015&runs=3', 'preset=layers-333', 'preset=lost-nokey&duration=5s', 'preset=queue-spike-none&duration=15s']) {
      const got = await page.evaluate(l => window.retrylab.run(l), link);
      assert.deepEqual(got, cliJson(['run', link]), link);
    }
    const cmp = 'preset=payments-none&duration=10s&b.preset=payments-jitter&b.duration=10s';
    assert.deepEqual(await page.evaluate(l => window.retrylab.compare(l), cmp), cliJson(['compare', cmp]));
    assert.deepEqual(await page.evaluate(() => window.retrylab.sweep({ preset: 'burst-lab' }, ['backoff=none,full'])),
      cliJson(['sweep', 'preset=burst-lab', '--param', 'backoff=none,full']));
    assert.deepEqual(await page.evaluate(() => window.retrylab.explain({ preset: 'chapter', seed: 3 })), cliJson(['explain', 'preset=chapter&seed=3']));
    const messages = await page.evaluate(async () => {
      const m = async f => { try { await f(); return 'accepted'; } catch (e) { return `${e instanceof Error}:${e.message}`; } };
      const r = window.retrylab;
      return [
        await m(() => r.run(JSON.parse('{"__proto__": "x"}'))),
        await m(() => r.explain({ seed: { nested: true } })),
        await m(() => r.run(42)),
        await m(() => r.explain('x'.repeat(100000))),
        await m(() => r.run('scenario=lost&breaker=on')),
      ];
    });
    assert.match(messages[0], /^true:link: unknown key '__proto__'/);
    assert.match(messages[1], /^true:seed: expected a string, a number or true\/false/);
    assert.match(messages[2], /^true:link: expected a link/);
    assert.match(messages[3], /^true:link: longer than/);
    assert.equal(messages[4], 'true:breaker: has no effect with scenario=lost: it applies to scenario=outage, burst');
    assert.deepEqual(errors, []);
    await context.close();
  });

  await check('unused controls fold into one closed group with their reasons; a sweep\'s table is HTML; a comparison lists what B changes', async () => {
    let { page, context, errors } = await openPage('?v=2&preset=occ-2015&runs=1&backoff=exponential&b.backoff=full');
    const summary = await page.locator('#unused-summary').innerText();
    const n = Number(/^Not used by this scenario \((\d+)\)$/.exec(summary)[1]);
    assert.ok(n >= 5, summary);
    assert.equal(await page.locator('#unused').getAttribute('open'), null, 'closed at first');
    assert.equal(await page.locator('#unused-fields > .fields').count(), n);
    assert.equal(await page.locator('#unused #outcomes').isDisabled(), true);
    await page.locator('#unused-summary').click();
    assert.match(await page.locator('#outcomes-note').innerText(), /^outcomes: has no effect with scenario=occ/);
    await page.waitForSelector('#scenario-view[data-done="true"]', { timeout: 60000 });
    const changes = await page.locator('#compare-changes tbody tr').evaluateAll(rs => rs.map(r => [...r.cells].map(c => c.textContent)));
    assert.deepEqual(changes.map(r => r.slice(0, 3)), [['backoff', 'exponential', 'full']]);
    assert.ok(changes[0][3].length > 10, 'with its meaning');
    await context.close();
    ({ page, context, errors } = await openPage('?v=2&preset=burst-lab&sweep.backoff=none,full'));
    await page.waitForFunction(() => document.querySelectorAll('#sweep-table tbody tr').length === 2, null, { timeout: 60000 });
    const md = execFileSync('cargo', ['run', '-q', '-p', 'retrylab-cli', '--', 'sweep', 'preset=burst-lab&sweep.backoff=none,full'], { encoding: 'utf8' });
    const want = md.split('\n').filter(l => l.startsWith('| ')).map(l => l.slice(1, -1).split('|').map(c => c.trim().replaceAll('`', '')));
    const head = await page.locator('#sweep-table thead th').allTextContents();
    const rows = await page.locator('#sweep-table tbody tr').evaluateAll(rs => rs.map(r => [...r.cells].map(c => c.textContent)));
    assert.deepEqual([head, ...rows], want);
    assert.equal(await page.locator('#sweep-md').textContent(), md.trimEnd() === md ? md : (await page.locator('#sweep-md').textContent()));
    assert.deepEqual(errors, []);
    await context.close();
  });

  await check('two clients on one schedule, each formula the CLI\'s; the menu groups clients by ecosystem; the client table opens each preset', async () => {
    const link = '?preset=openai&b.preset=urllib3&b.base=500ms';
    const { page, context, errors } = await openPage(link);
    assert.equal(await attr(page, '#schedule-formulas', 'data-sides'), '2');
    const cli = execFileSync('cargo', ['run', '-q', '-p', 'retrylab-cli', '--', 'schedule', link.slice(1), '--clients', '3'], { encoding: 'utf8' });
    const lines = cli.split('\n').filter(l => /^[AB]: /.test(l));
    assert.equal(lines.length, 2, cli);
    assert.deepEqual((await page.locator('#schedule-formulas').innerText()).split('\n'), lines);
    await page.locator('#schedule').screenshot({ path: join(ARTIFACTS, 'schedule-two-clients.png') });
    const groups = await page.locator('#preset optgroup').evaluateAll(gs => gs.map(g => g.label));
    for (const g of ['Scenarios', 'Python clients', 'JavaScript clients', 'Rust clients', 'Proxies and specifications']) assert.ok(groups.includes(g), groups.join());
    await page.locator('#clients-box summary').click();
    await page.waitForSelector('#clients-table[data-rows]');
    const n = Number(await attr(page, '#clients-table', 'data-rows'));
    assert.ok(n >= 31, String(n));
    assert.equal(await page.locator('#clients-table tbody a').count(), n);
    await page.locator('#clients-box').screenshot({ path: join(ARTIFACTS, 'client-table.png') });
    await page.locator('#clients-table a[href="?preset=stamina"]').click();
    await page.waitForURL(/preset=stamina/);
    await page.waitForSelector('body[data-ready="true"]');
    assert.match(await page.locator('#schedule-formulas').innerText(), /jitter \+ U\(0, 1s\), then the cap/);
    assert.equal(await attr(page, '#schedule-formulas', 'data-sides'), '1');
    assert.deepEqual(errors, []);
    await context.close();
  });

  await check('the adaptive limiter: its figures are the CLI\'s tiles, its allowed rate is read at a point; screenshot', async () => {
    const { page, context, errors } = await openScenario('?preset=botocore-adaptive');
    const rows = await tileRows(page);
    assert.deepEqual(rows, cliRows('preset=botocore-adaptive'));
    assert.ok(rows.some(([k]) => k === 'sends that waited'), rows.join('|'));
    await page.screenshot({ path: join(ARTIFACTS, 'scenario-botocore-adaptive.png'), fullPage: true });
    // Point at 30 s: the readout gives the rate the limiter allows there.
    const box = await page.locator('#timeline').boundingBox();
    const t1 = Number(await attr(page, '#timeline', 'data-bins'));
    let said = '';
    for (const f of [0.45, 0.5, 0.55]) {
      await page.mouse.move(box.x + box.width * f, box.y + box.height / 3);
      said = await page.locator('#timeline-readout').textContent();
      if (said.includes('the limiter allows')) break;
    }
    assert.ok(t1 > 0 && said.includes('the limiter allows'), said);
    assert.deepEqual(errors, []);
    await context.close();
  });

  await check('hedging: the CLI\'s rows on the page, the switch turns the hedge rows off, the lesson\'s answer comes from its sweep; screenshots', async () => {
    const { page, context, errors } = await openScenario('?preset=hedge-overload');
    const rows = await tileRows(page);
    assert.deepEqual(rows, cliRows('preset=hedge-overload'));
    const tile = name => rows.find(([k]) => k === name)?.[1];
    assert.equal(tile('peak attempts/s'), '600');
    assert.match(tile('extra load'), /^\+4\d\.\d%$/);
    await page.screenshot({ path: join(ARTIFACTS, 'scenario-hedge-overload.png'), fullPage: true });
    // Hedging off: its rows go, the load is the arrivals', and the hedging keys are disabled.
    const before = await renders(page);
    await change(page, '#hedge', 'off');
    await page.waitForFunction(n => Number(document.body.dataset.renders) > n, before);
    await page.waitForSelector('#scenario-view[data-done="true"]', { timeout: 60000 });
    const off = await tileRows(page);
    assert.deepEqual(off, cliRows('preset=hedge-overload&hedge=off'));
    assert.ok(!off.some(([k]) => k === 'hedges sent'), off.join('|'));
    assert.equal(await page.locator('#hedge_delay').isDisabled(), true);
    // A comparison lists the rows only one side has, with "-" on the other, as retrylab compare does.
    const cmp = await openScenario('?preset=hedge-tail&b.hedge=off');
    const rowsAB = await cmp.page.locator('#compare tbody tr').evaluateAll(rs => rs.map(r => [...r.cells].map(c => c.textContent)));
    const sent = rowsAB.find(r => r[0] === 'hedges sent');
    assert.ok(sent && sent[2] === '-' && Number(sent[1]) > 0, JSON.stringify(rowsAB));
    const p999 = rowsAB.find(r => r[0] === 'p99.9 latency (successes)');
    assert.deepEqual(p999, ['p99.9 latency (successes)', '27 ms', '502 ms']);
    assert.deepEqual(cmp.errors, []);
    await cmp.context.close();
    await page.selectOption('#lesson-menu', 'hedging');
    await page.waitForFunction(() => location.search.includes('lesson=hedging'));
    await page.fill('#lesson-guess', '1');
    await page.click('#lesson-commit');
    await page.waitForFunction(() => /The lab:/.test(document.getElementById('lesson-result').textContent), null, { timeout: 120000 });
    assert.match(await page.locator('#lesson-result').innerText(), /^Your guess: 1\. The lab: slow=1 \(p999_ms: 502 ms with hedge=off, 27 ms with hedge=on\)\. Right\.$/);
    await page.screenshot({ path: join(ARTIFACTS, 'lesson-hedging.png'), fullPage: true });
    assert.deepEqual(errors, []);
    await context.close();
  });

  await check('a phase plot: its rows checked a few per task, then 400 runs as a heatmap with its boundary; a cell reads out its run\'s link; the grids are the CLI\'s; screenshot', async () => {
    // The status line, as it changes: the rows are checked a few per task before they run.
    const context = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
    await context.addInitScript(() => {
      window.__statuses = [];
      new MutationObserver(() => {
        const t = document.getElementById('sim-status')?.textContent;
        if (t && window.__statuses[window.__statuses.length - 1] !== t) window.__statuses.push(t);
      }).observe(document, { subtree: true, childList: true, characterData: true });
    });
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', e => errors.push(String(e)));
    await page.goto(BASE + '/?preset=phase-spike');
    await page.waitForSelector('#scenario-view[data-done="true"]', { timeout: 120000 });
    const statuses = await page.evaluate(() => window.__statuses);
    const checking = statuses.filter(t => /^checking the sweep's rows: \d+ of 400$/.test(t));
    assert.ok(checking.length >= 1, `statuses: ${JSON.stringify(statuses)}`);
    assert.ok(statuses.some(t => t.startsWith('running ')), `statuses: ${JSON.stringify(statuses)}`);
    assert.equal(await attr(page, '#sweep-chart-0', 'data-chart'), 'heatmap');
    assert.equal(await attr(page, '#sweep-chart-0', 'data-cells'), '400');
    await page.locator('#sweep-chart-0').screenshot({ path: join(ARTIFACTS, 'phase-spike.png') });
    const box = await page.locator('#sweep-chart-0').boundingBox();
    let said = '';
    for (const [fx, fy] of [[0.5, 0.4], [0.3, 0.5], [0.7, 0.3]]) {
      await page.mouse.move(box.x + box.width * fx, box.y + box.height * fy);
      said = await page.locator('#sweep-readout').innerText();
      if (said.includes('?v=2')) break;
    }
    assert.match(said, /^spike_rate=\d+, spike_for=\d+s: recovered: (yes|no)/, said);
    const href = await page.locator('#sweep-readout a').getAttribute('href');
    assert.ok(href.startsWith('?v=2&') && !href.includes('preset=phase-spike'), href);
    // A third key draws its grids side by side: a budget against none.
    const three = await openPage('?preset=queue-spike-none&rate=70&spike_start=10s&sweep.spike_rate=20..100/20&sweep.spike_for=1s..5s/1s&sweep.budget=none,bucket&sweep.plot=recovered');
    await three.page.waitForSelector('#scenario-view[data-done="true"]', { timeout: 120000 });
    assert.equal(await attr(three.page, '#sweep-chart-0', 'data-cells'), '50');
    await three.page.locator('#sweep-chart-0').screenshot({ path: join(ARTIFACTS, 'phase-three-keys.png') });
    assert.deepEqual(three.errors, []);
    await three.context.close();
    const md = execFileSync('cargo', ['run', '-q', '-p', 'retrylab-cli', '--', 'sweep', 'preset=phase-spike'], { encoding: 'utf8' });
    assert.ok(md.includes('recovered by spike_rate and spike_for'), md.slice(-500));
    assert.deepEqual(errors, []);
    await context.close();
  });

  await check('the analytic twin beside a queue run: retrylab analyze\'s rows, the chain\'s mass with the run\'s path, the state under the pointer; refusals by key; its lesson; screenshot', async () => {
    const { page, context, errors } = await openScenario('?preset=twin-spike');
    await page.waitForSelector('#analytic-section[data-twin="solved"]', { timeout: 20000 });
    const rows = await page.locator('#analytic-table tr').evaluateAll(rs => rs.slice(1).map(r => [...r.cells].map(c => c.textContent)));
    const cli = execFileSync('cargo', ['run', '-q', '-p', 'retrylab-cli', '--', 'analyze', 'preset=twin-spike'], { encoding: 'utf8' })
      .split('\n').slice(1).filter(l => l.trim()).map(l => l.trim().split(/\s{2,}/));
    assert.deepEqual(rows, cli);
    assert.equal(await attr(page, '#analytic-chart', 'data-states'), rows[0][1].split(' ')[0]);
    // One point per time bin of the run (90 s in 1 s bins, and the last bin's end).
    assert.ok(Number(await attr(page, '#analytic-chart', 'data-path')) >= 90);
    const ms = Number(await attr(page, '#analytic-section', 'data-solve-ms'));
    console.log(`     the twin of preset=twin-spike (1218 states) solved in ${ms} ms in the worker`);
    // The state under the pointer: its share of the chain's time, and when the run was there.
    await page.locator('#analytic-chart').scrollIntoViewIfNeeded();
    const box = await page.locator('#analytic-chart').boundingBox();
    const [left, top, right, bottom] = (await attr(page, '#analytic-chart', 'data-plot')).split(' ').map(Number);
    assert.ok(left >= 0 && right > left && bottom > top, `plot edges ${left} ${top} ${right} ${bottom}`);
    await page.mouse.move(box.x + left + 2, box.y + bottom - 2);
    const said = await page.locator('#analytic-readout').innerText();
    assert.match(said, /^0 attempts at the server, 0 waiting to retry \(low-queue mode\): the chain is here \d+\.\d%; the run was here at /, said);
    assert.equal(await attr(page, '#analytic-chart', 'data-marked'), '0,0', 'the cell under the pointer is outlined');
    await page.screenshot({ path: join(ARTIFACTS, 'analytic-twin-pointer.png'), clip: { x: box.x, y: box.y, width: box.width, height: box.height + 60 } });
    await page.mouse.move(box.x + left - 20, box.y + bottom + 20);
    assert.equal(await page.locator('#analytic-readout').innerText(), '');
    assert.equal(await attr(page, '#analytic-chart', 'data-marked'), '');
    await page.locator('#analytic-section').screenshot({ path: join(ARTIFACTS, 'analytic-twin.png') });
    assert.deepEqual(await axeFindings(page), []);
    // A queue the chain does not model says why, by key; a run without a queue has no panel.
    const fixed = await openScenario('?preset=queue-spike-none');
    await fixed.page.waitForSelector('#analytic-section[data-twin="refused"]', { timeout: 20000 });
    assert.match(await fixed.page.locator('#analytic-note').innerText(), /^The analytic twin does not model this link: service_dist: analyze: the chain needs exponential service times/);
    assert.equal(await fixed.page.locator('#analytic-chart').isHidden(), true);
    await fixed.context.close();
    const other = await openScenario('?preset=payments-none');
    assert.equal(await other.page.locator('#analytic-section').isHidden(), true);
    await other.context.close();
    // The twin's lesson: the run's recovery (the CLI's row) against the chain's mixing time.
    const recovered = cliRows('preset=twin-spike').find(r => r[0] === 'recovered')[1];
    const runS = recovered.match(/^yes, ([\d.]+) s after the trigger ended$/)[1];
    const mixing = Number(rows.find(r => r[0] === 'mixing time')[1].split(' ')[0]);
    await page.selectOption('#lesson-menu', 'analytic-twin');
    await page.waitForFunction(() => location.search.includes('lesson=analytic-twin'));
    await page.fill('#lesson-guess', 'yes');
    await page.click('#lesson-commit');
    await page.waitForFunction(() => /The lab:/.test(document.getElementById('lesson-result').textContent), null, { timeout: 60000 });
    const word = Number(runS) > mixing ? 'yes' : 'no';
    const twinSaid = cliAnswer('lesson=analytic-twin');
    assert.equal(twinSaid.exact, word, 'the CLI and the two figures agree');
    assert.equal(await page.locator('#lesson-result').innerText(),
      `Your guess: yes. The lab: ${twinSaid.answer}. ${word === 'yes' ? 'Right.' : 'Not quite: look again at the view.'}`);
    assert.deepEqual(errors, []);
    await context.close();
  });

  await check('the footer\'s documentation links open on the built site', async () => {
    const { page, context, errors } = await openPage('?v=2');
    const hrefs = await page.locator('footer a[href^="docs/"]').evaluateAll(as => as.map(a => a.getAttribute('href')));
    assert.ok(hrefs.length >= 3, `${hrefs.length} links`);
    for (const href of hrefs) {
      const res = await page.request.get(`${BASE}/${href}`);
      assert.equal(res.status(), 200, href);
      assert.ok((await res.text()).startsWith('#'), `${href} is the document`);
    }
    assert.deepEqual(errors, []);
    await context.close();
  });
  await check('every lesson opened as a bare link shows nothing of its answer before the guess, and the CLI\'s answer after it, also on reload', async () => {
    const lessons = JSON.parse(execFileSync('cargo', ['run', '-q', '-p', 'retrylab-cli', '--', 'lessons', '--format', 'json'], { encoding: 'utf8' }));
    const asking = lessons.filter(l => l.question);
    assert.ok(asking.length >= 15, `${asking.length} lessons ask`);
    for (const l of asking) {
      const said = cliAnswer(`lesson=${l.id}`);
      const { page, context, errors } = await openPage(`?lesson=${l.id}`);
      await page.waitForFunction(() => document.getElementById('lesson-question').textContent.length > 0);
      assert.ok(page.url().includes(`lesson=${l.id}`) && page.url().includes(said.link.split('&')[1]), `${l.id}: opens its own set-up: ${page.url()}`);
      await page.waitForTimeout(300);
      const before = await page.locator('body').innerText();
      assert.ok(!before.includes('The lab:'), l.id);
      assert.equal(await page.locator('#tree-section').isVisible(), false, `${l.id}: the tree's counts wait for the guess`);
      assert.equal(await page.locator('#trace-view').isVisible(), false, `${l.id}: the trace's decisions wait for the guess`);
      assert.equal(await shows(page, '#tiles'), false, `${l.id}: the tiles wait for the guess`);
      assert.equal(await shows(page, '#compare'), false, `${l.id}: the before/after table waits for the guess`);
      if (/\d/.test(said.answer)) assert.ok(!before.includes(said.answer), `${l.id}: '${said.answer}' shows before the guess`);
      // Neither the id in the address nor the lead-in gives the answer away; what the run
      // shows is said only after the guess.
      const number = (said.answer.match(/^-?[\d.]+/) || [''])[0];
      if (number.length > 1) assert.ok(!l.id.includes(number) && !page.url().includes(`lesson=${number}`), `${l.id}: the id holds the answer ${number}`);
      if (l.after) assert.ok(!before.includes(l.after), `${l.id}: its after-text shows before the guess`);
      assert.equal(await page.locator('#lesson-after').isVisible(), false, `${l.id}: the after-text waits for the guess`);
      // The unit sits beside the field; the answer typed as the page shows it (a number with
      // its unit, or the word) is judged right, in the CLI's words.
      assert.equal(await page.locator('#lesson-unit').innerText(), said.unit, `${l.id}: the unit beside the field`);
      const typed = /^-?[\d.]+$/.test(said.exact) && said.unit ? said.answer : said.exact;
      await page.fill('#lesson-guess', typed);
      await page.click('#lesson-commit');
      await page.waitForFunction(() => /The lab:/.test(document.getElementById('lesson-result').textContent), null, { timeout: 120000 })
        .catch(async e => { throw new Error(`${l.id}, guess '${typed}': ${await page.locator('#errors').innerText()} ${e.message}`); });
      const result = await page.locator('#lesson-result').innerText();
      assert.ok(result.includes(`The lab: ${said.answer}.`), `${l.id}: ${result} against the CLI's ${said.answer}`);
      assert.ok(result.endsWith('Right.'), `${l.id}: '${typed}' is the answer as shown: ${result}`);
      const inLink = encodeURIComponent(typed.toLowerCase() === 'none' ? 'None' : typed);
      const judged = cliAnswer(`lesson=${l.id}&guess=${inLink}`);
      assert.equal(judged.right, true, `${l.id}: the CLI judges '${typed}' right too`);
      assert.equal(await page.locator('#lesson-guess').inputValue(), typed, `${l.id}: the field keeps the guess`);
      if (l.after) assert.equal(await page.locator('#lesson-after').innerText(), l.after, `${l.id}: what the run shows, after the guess`);
      assert.ok(page.url().includes(`guess=${inLink}`), `${l.id}: the guess is in the link: ${page.url()}`);
      await page.reload();
      await page.waitForFunction(() => /The lab:/.test(document.getElementById('lesson-result').textContent), null, { timeout: 120000 });
      assert.deepEqual(errors, [], l.id);
      await context.close();
    }
  });

  await check('ask= and q= make any link an exercise; a sheet goes through its exercises in order; screenshots at desktop and phone sizes', async () => {
    const link = '?preset=payments-none&ask=success_rate&q=What%20share%20of%20checkouts%20succeed%3F';
    const said = cliAnswer(link.slice(1));
    const { page, context, errors } = await openPage(link);
    assert.equal(await page.locator('#lesson-question').innerText(), 'What share of checkouts succeed?');
    assert.equal(await shows(page, '#tiles'), false);
    await page.fill('#lesson-guess', '50');
    await page.click('#lesson-commit');
    await page.waitForFunction(() => /The lab:/.test(document.getElementById('lesson-result').textContent), null, { timeout: 60000 });
    assert.equal(await page.locator('#lesson-result').innerText(), `Your guess: 50 %. The lab: ${said.answer}. Not quite: look again at the view.`);
    // A guess the link refuses gets one line naming the field, and stays in the field as typed.
    const long = 'a much too long guess, past forty characters';
    await page.fill('#lesson-guess', long);
    await page.click('#lesson-commit');
    await page.waitForFunction(() => /guess/.test(document.getElementById('errors').textContent));
    assert.equal(await page.locator('#lesson-guess').inputValue(), long, 'the refused guess stays in the field');
    await page.fill('#lesson-guess', said.answer);
    await page.click('#lesson-commit');
    await page.waitForFunction(() => /Right\.$/.test(document.getElementById('lesson-result').textContent), null, { timeout: 60000 });
    // A teacher's exercise over a sweep answers on the page as in the CLI.
    const swept = 'preset=burst-lab&sweep.backoff=none,full&ask=least:attempts';
    const sweptSaid = cliAnswer(swept);
    await page.goto(`${BASE}/?${swept}`);
    await page.waitForSelector('body[data-ready="true"]', { timeout: 20000 });
    await page.fill('#lesson-guess', sweptSaid.exact);
    await page.click('#lesson-commit');
    await page.waitForFunction(() => /The lab:/.test(document.getElementById('lesson-result').textContent), null, { timeout: 120000 });
    assert.equal(await page.locator('#lesson-result').innerText(), `Your guess: ${sweptSaid.exact}. The lab: ${sweptSaid.answer}. Right.`);
    assert.equal(await attr(page, '#errors', 'data-count'), '0');
    // A question is shown as text, never as markup.
    await page.goto(BASE + '/?preset=payments-none&ask=attempts&q=%3Cb%3Ebold%3C%2Fb%3E');
    await page.waitForSelector('body[data-ready="true"]');
    assert.equal(await page.locator('#lesson-question').innerText(), '<b>bold</b>');
    // A sheet: its link opens the first exercise; Next goes to the second.
    const dir = join(ARTIFACTS, 'sheet');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'week3.md'), '# Week 3\n\nHow many calls reach the bottom for one click?\n?preset=layers-333&ask=amplification\n\nHow much of the deadline is left when attempt 3 starts?\npreset=chapter&ask=remaining_at:3\n');
    const sheet = JSON.parse(execFileSync('cargo', ['run', '-q', '-p', 'retrylab-cli', '--', 'sheet', join(dir, 'week3.md'), '--format', 'json'], { encoding: 'utf8' }));
    for (const [w, h, name] of [[1280, 900, 'desktop'], [390, 844, 'phone']]) {
      await page.setViewportSize({ width: w, height: h });
      await page.goto(BASE + '/' + sheet.link);
      await page.waitForSelector('body[data-ready="true"]');
      assert.equal(await page.locator('#sheet-pos').innerText(), 'Exercise 1 of 2');
      assert.equal(await page.locator('#lesson-question').innerText(), 'How many calls reach the bottom for one click?');
      await page.screenshot({ path: join(ARTIFACTS, `sheet-${name}.png`) });
    }
    await page.click('#sheet-next');
    await page.waitForSelector('body[data-ready="true"]');
    assert.equal(await page.locator('#sheet-pos').innerText(), 'Exercise 2 of 2');
    assert.equal(await page.locator('#trace-view').isVisible(), false);
    await page.fill('#lesson-guess', '3600');
    await page.click('#lesson-commit');
    await page.waitForFunction(() => /The lab:/.test(document.getElementById('lesson-result').textContent));
    assert.equal(await page.locator('#lesson-result').innerText(), `Your guess: 3600 ms. The lab: ${sheet.exercises[1].answer}. Right.`);
    assert.equal(await page.locator('#sheet-next').getAttribute('aria-disabled'), 'true');
    assert.deepEqual(errors, []);
    await context.close();
  });

  await check('a preset that misses its published figure says why under its tiles, in the CLI\'s words', async () => {
    const link = 'preset=omission-open&duration=5s';
    const { page, context, errors } = await openScenario('?' + link);
    const cli = execFileSync('cargo', ['run', '-q', '-p', 'retrylab-cli', '--', 'run', link], { encoding: 'utf8' });
    const note = await page.locator('#run-note').innerText();
    assert.match(note, /^Brooker's post reports a p99 over 25 ms/);
    assert.ok(cli.trim().endsWith(note.trim()), cli.slice(-300));
    assert.deepEqual(errors, []);
    await context.close();
  });

  await check('a sweep\'s table shows every column at 1440 px, recovered included', async () => {
    const { page, context, errors } = await openPage('?preset=queue-spike-none&sweep.spike_rate=20..100/20', 1, { width: 1440, height: 900 });
    await page.waitForSelector('#scenario-view[data-done="true"]', { timeout: 90000 });
    const m = await page.evaluate(() => {
      const t = document.getElementById('sweep-table');
      const heads = [...t.querySelectorAll('th')].map(h => h.textContent);
      const last = t.querySelector('tr:last-child td:last-child').getBoundingClientRect();
      return { heads, scroll: t.scrollWidth, width: t.clientWidth, right: last.right, edge: t.getBoundingClientRect().right };
    });
    assert.ok(m.heads.includes('recovered'), m.heads.join(','));
    assert.ok(m.scroll <= m.width + 1, `the table scrolls: ${m.scroll} px in ${m.width} px`);
    assert.ok(m.right <= m.edge + 1, `the last column ends at ${m.right} px, past ${m.edge} px`);
    assert.deepEqual(errors, []);
    await context.close();
  });

  await check('when the lab cannot start (its wasm blocked), a note says so instead of a blank page; a started lab never shows it', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
    const page = await context.newPage();
    await page.route(/\.wasm$/, r => r.abort());
    await page.goto(BASE + '/?preset=chapter');
    const note = page.locator('#boot-note');
    await page.waitForFunction(() => getComputedStyle(document.getElementById('boot-note')).visibility === 'visible', null, { timeout: 15000 });
    assert.match(await note.innerText(), /could not start the lab/);
    await context.close();
    const { page: ok, context: c2 } = await openPage('?preset=chapter');
    await ok.waitForTimeout(8500);
    assert.equal(await ok.locator('#boot-note').isVisible(), false, 'the note stays hidden once the lab is up');
    await c2.close();
  });

  await check('a bad link\'s message is on the first screen, the address keeps what was written, the start screen opens with no link', async () => {
    for (const [w, h] of [[1280, 900], [390, 844]]) {
      const context = await browser.newContext({ viewport: { width: w, height: h } });
      const page = await context.newPage();
      await page.goto(BASE + '/?preset=nope&attempts=4');
      await page.waitForSelector('body[data-ready="true"]');
      const box = await page.locator('#errors').boundingBox();
      assert.ok(box && box.y + box.height <= h, `the message is on the first screen at ${w}x${h}: ${JSON.stringify(box)}`);
      assert.match(await page.locator('[role="alert"]').first().innerText(), /^preset: unknown preset 'nope'/);
      assert.ok(page.url().endsWith('?preset=nope&attempts=4'), page.url());
      await page.screenshot({ path: join(ARTIFACTS, `bad-link-${w}.png`) });
      await page.goto(BASE + '/');
      await page.waitForSelector('body[data-ready="true"]');
      assert.equal(await page.locator('#start').isVisible(), true);
      assert.equal(await page.locator('#controls').isVisible(), false);
      assert.ok(page.url().endsWith('/'), `the start screen's address stays bare: ${page.url()}`);
      assert.equal(await page.locator('#start .cards li').count(), 8);
      const lessons = JSON.parse(execFileSync('cargo', ['run', '-q', '-p', 'retrylab-cli', '--', 'lessons', '--format', 'json'], { encoding: 'utf8' }));
      assert.equal(await page.locator('#start-lessons li').count(), lessons.length, 'all lessons, each a bare link');
      assert.equal(await page.locator('#start-lessons-title').innerText(), `All ${lessons.length} lessons (most ask a question before the run)`);
      assert.equal(await page.locator('#start-lessons a').first().getAttribute('href'), '?lesson=course-project');
      assert.deepEqual(await axeFindings(page), []);
      // One main landmark in view, the start screen's; the page describes itself to a search.
      assert.deepEqual(await page.evaluate(() => [...document.querySelectorAll('main')].filter(m => m.getClientRects().length && !m.hidden).map(m => m.id)), ['start']);
      assert.ok((await page.locator('meta[name="description"]').getAttribute('content')).length >= 80);
      await page.screenshot({ path: join(ARTIFACTS, `start-${w}.png`), fullPage: true });
      await page.click('#start-free');
      await page.waitForSelector('body[data-ready="true"]');
      assert.equal(await page.locator('#controls').isVisible(), true);
      await context.close();
    }
  });

  await check('nothing on screen moves as the page is built and the results arrive: layout shift under 0.1 on the course link, laptop and phone', async () => {
    for (const viewport of [{ width: 1350, height: 940 }, { width: 412, height: 823 }]) {
      for (const link of ['?lesson=course-project&guess=195', '?v=2&preset=payments-none&b.preset=payments-jitter', '?lesson=deadline-walk']) {
        const context = await browser.newContext({ viewport });
        const page = await context.newPage();
        // Cumulative layout shift as the browser reports it (what Lighthouse sums).
        await page.addInitScript(() => {
          window.__cls = 0;
          new PerformanceObserver(l => { for (const e of l.getEntries()) if (!e.hadRecentInput) window.__cls += e.value; })
            .observe({ type: 'layout-shift', buffered: true });
        });
        await page.goto(BASE + '/' + link);
        await page.waitForSelector('body[data-ready="true"]');
        if (link.includes('preset=payments') || link.includes('guess=')) await page.waitForSelector('#scenario-view[data-done="true"]', { timeout: 60000 });
        await page.waitForTimeout(300);
        const cls = await page.evaluate(() => window.__cls);
        assert.ok(cls < 0.1, `${link} at ${viewport.width} px: layout shift ${cls.toFixed(3)}`);
        await context.close();
      }
    }
  });

  await check('production scale: a 20,000 requests/s outage runs on the population engine, named in the tiles with its step, the CLI\'s numbers', async () => {
    const link = '?v=2&preset=payments-none&rate=20000&capacity=25000&duration=100s';
    const { page, context, errors } = await openScenario(link);
    const tiles = await page.locator('#tiles').innerText();
    assert.match(tiles, /population, 50 ms steps/);
    const cli = JSON.parse(execFileSync('cargo', ['run', '-q', '-p', 'retrylab-cli', '--', 'run', link.slice(1), '--format', 'json'], { encoding: 'utf8' }));
    assert.match(tiles, new RegExp(String(cli.summary.attempts)));
    assert.equal(cli.summary.population.tick_ms, 50);
    // One click to check the counts against every request, on a storm both engines run.
    const check = page.locator('#engine-check a');
    assert.match(await page.locator('#engine-check').innerText(), /the same storm at 1\/\d+ the size, side A per request, side B as counts/);
    await check.click();
    await page.waitForSelector('#scenario-view[data-done="true"]', { timeout: 60000 });
    assert.match(page.url(), /engine=request&b\.engine=population/);
    assert.match(await page.locator('#compare').innerText(), /originals/);
    assert.deepEqual(errors, []);
    await context.close();
  });

  await check('find a better policy: from a run\'s link to the frontier, the CLI\'s points and verdict, a point read out under the pointer, its comparison one click away; laptop and phone', async () => {
    const { page, context, errors } = await openScenario('?preset=payments-jitter');
    const offer = page.locator('#tune-link');
    assert.ok(await offer.isVisible(), 'a run of an outage offers the search');
    await offer.click();
    await page.waitForSelector('#scenario-view[data-done="true"]', { timeout: 120000 });
    assert.match(page.url(), /tune=on/);
    const link = new URL(page.url()).search.slice(1);
    const cli = JSON.parse(execFileSync('cargo', ['run', '-q', '-p', 'retrylab-cli', '--', 'tune', link, '--format', 'json'], { encoding: 'utf8' }));
    const points = Number(await page.locator('#tune-chart').getAttribute('data-points'));
    assert.equal(points, cli.frontier.length, 'the page draws the CLI\'s frontier');
    const rows = await page.locator('#tune-table tbody tr').allInnerTexts();
    assert.equal(rows.length, cli.frontier.length + 1);
    cli.frontier.forEach((f, i) => assert.ok(rows[i].startsWith(`${i + 1}\t${f.keys.replaceAll('&', ' ')}`), `${rows[i]} against ${f.keys}`));
    assert.ok(rows.at(-1).startsWith('yours'));
    const verdict = await page.locator('#tune-verdict').innerText();
    assert.match(verdict, new RegExp(`${cli.tried} policies tried, ${cli.runs_made} runs made`));
    if (cli.dominated_by) assert.match(verdict, new RegExp(`dominated by #${cli.dominated_by}`));
    await page.locator('#tune-section').screenshot({ path: join(ARTIFACTS, 'tune-laptop.png') });
    // The pointer on a point reads out its figures under each weather.
    const box = await page.locator('#tune-chart').boundingBox();
    let said = '';
    for (let fx = 0.1; fx < 1 && !said.startsWith('#'); fx += 0.01) {
      for (let fy = 0.1; fy < 0.9 && !said.startsWith('#'); fy += 0.02) {
        await page.mouse.move(box.x + box.width * fx, box.y + box.height * fy);
        said = await page.locator('#tune-readout').innerText();
      }
    }
    assert.match(said, /^#\d+ \(.*\): blip: .* success, .*; outage: .*; spike: .*; over \d+ runs each\.$/, said);
    // A point's comparison with the user's own: the run's side B is the point's policy.
    const compare = page.locator('#tune-table tbody tr').first().locator('a', { hasText: 'compare with yours' });
    if (await compare.count()) {
      await compare.click();
      await page.waitForSelector('#scenario-view[data-done="true"]', { timeout: 60000 });
      assert.match(page.url(), /b\./);
      assert.doesNotMatch(page.url(), /tune=on/);
      assert.match(await page.locator('#compare').innerText(), /originals/);
    }
    assert.deepEqual(errors, []);
    await context.close();
    // On a phone, the link's own weathers (tune_weather): the page's frontier is still the CLI's.
    const weathered = `${link}&tune_weather=blip:outage=5s/long:outage=30s,duration=60s`;
    const cliW = JSON.parse(execFileSync('cargo', ['run', '-q', '-p', 'retrylab-cli', '--', 'tune', weathered, '--format', 'json'], { encoding: 'utf8' }));
    const phone = await openPage('?' + weathered, 2, { width: 390, height: 844 });
    await phone.page.waitForSelector('#scenario-view[data-done="true"]', { timeout: 120000 });
    assert.equal(Number(await phone.page.locator('#tune-chart').getAttribute('data-points')), cliW.frontier.length);
    const phoneRows = await phone.page.locator('#tune-table tbody tr').allInnerTexts();
    cliW.frontier.forEach((f, i) => assert.ok(phoneRows[i].startsWith(`${i + 1}\t${f.keys.replaceAll('&', ' ')}`), `${phoneRows[i]} against ${f.keys}`));
    assert.match(await phone.page.locator('#tune-verdict').innerText(), /long \(outage=30s&duration=60s\)|long \(`outage=30s&duration=60s`\)/);
    await phone.page.locator('#tune-chart').screenshot({ path: join(ARTIFACTS, 'tune-phone.png') });
    assert.deepEqual(phone.errors, []);
    await phone.context.close();
  });

  await check('how sure: runs=30 puts each figure\'s 95% interval under it, the CLI\'s rows; a phase plot over runs shades the probability of collapse, cells stopped once clear of 50%; screenshots', async () => {
    const link = 'preset=metastable-none&backoff=full&runs=30';
    const { page, context, errors } = await openScenario('?' + link);
    const rows = await tileRows(page);
    assert.deepEqual(rows, cliRows(link), 'tiles equal retrylab run, intervals included');
    assert.match(await page.locator('#tiles .tile dd .interval').first().innerText(), /^\(95%: [\d.]+x to [\d.]+x\)$/);
    assert.ok(rows.some(([k, v]) => k === 'recovered in runs' && /^30 of 30 \(95%: /.test(v)), JSON.stringify(rows));
    await page.locator('#tiles').screenshot({ path: join(ARTIFACTS, 'intervals-tiles.png') });
    const phase = await openPage('?scenario=outage&attempt_timeout=1s&attempts=3&backoff=none&idempotent=true&rate=70&outage=0ms&server=queue&workers=4&service=40ms&spike_start=10s&service_dist=exp&arrivals=poisson&runs=20&sequential=true&sweep.spike_rate=20..120/20&sweep.spike_for=1s..11s/2s&sweep.plot=recovered');
    await phase.page.waitForSelector('#scenario-view[data-done="true"]', { timeout: 120000 });
    const md = execFileSync('cargo', ['run', '-q', '-p', 'retrylab-cli', '--', 'sweep', 'scenario=outage&attempt_timeout=1s&attempts=3&backoff=none&idempotent=true&rate=70&outage=0ms&server=queue&workers=4&service=40ms&spike_start=10s&service_dist=exp&arrivals=poisson&runs=20&sequential=true&sweep.spike_rate=20..120/20&sweep.spike_for=1s..11s/2s&sweep.plot=recovered'], { encoding: 'utf8' });
    assert.match(md, /\| \d+ of \d+ \([\d.]+%-[\d.]+%\) \|/);
    await phase.page.locator('#sweep-chart-0').screenshot({ path: join(ARTIFACTS, 'phase-probability.png') });
    const box = await phase.page.locator('#sweep-chart-0').boundingBox();
    let said = '';
    for (const [fx, fy] of [[0.5, 0.45], [0.3, 0.5], [0.7, 0.3]]) {
      await phase.page.mouse.move(box.x + box.width * fx, box.y + box.height * fy);
      said = await phase.page.locator('#sweep-readout').innerText();
      if (said.includes('?v=2')) break;
    }
    assert.match(said, /recovered in \d+ of \d+ runs \(95%: [\d.]+% to [\d.]+%\)\. These runs: \?v=2/, said);
    assert.deepEqual(phase.errors, []);
    await phase.context.close();
    assert.deepEqual(errors, []);
    await context.close();
  });

  await check('find a better policy kept to the imported format: a gRPC service config read by the Import box offers the search with tune_format=grpc, and the page\'s frontier is retrylab tune\'s, every point one gRPC writes back', async () => {
    const { page, context, errors } = await openPage('?v=2#import');
    await page.fill('#import-text', readFileSync('tests/configs/grpc/grpc-go-example.json', 'utf8'));
    await page.click('#import-go');
    await page.waitForFunction(() => document.querySelector('#import-status').textContent.startsWith('Imported'), null, { timeout: 20000 });
    await change(page, '#scenario', 'outage');
    await page.waitForSelector('#scenario-view[data-done="true"]', { timeout: 60000 });
    const offer = page.locator('#tune-link');
    assert.match(await offer.getAttribute('href'), /tune=on.*tune_format=grpc|tune_format=grpc.*tune=on/);
    await offer.click();
    await page.waitForSelector('#scenario-view[data-done="true"]', { timeout: 120000 });
    const link = new URL(page.url()).search.slice(1);
    assert.match(link, /tune_format=grpc/);
    const cli = JSON.parse(execFileSync('cargo', ['run', '-q', '-p', 'retrylab-cli', '--', 'tune', link, '--format', 'json'], { encoding: 'utf8' }));
    assert.equal(cli.format_of, 'grpc');
    const rows = await page.locator('#tune-table tbody tr').allInnerTexts();
    assert.equal(rows.length, cli.frontier.length + 1);
    cli.frontier.forEach((f, i) => assert.ok(rows[i].startsWith(`${i + 1}\t${f.keys.replaceAll('&', ' ')}`), `${rows[i]} against ${f.keys}`));
    assert.ok(cli.frontier.every(f => !/breaker|attempt_timeout/.test(f.keys)), 'gRPC writes no breaker and no per-attempt timeout');
    const verdict = await page.locator('#tune-verdict').innerText();
    assert.match(verdict, new RegExp(`${cli.tried} policies tried`));
    assert.match(verdict, /Every policy searched is one grpc can write back/);
    await page.locator('#tune-section').screenshot({ path: join(ARTIFACTS, 'tune-grpc.png') });
    assert.deepEqual(errors, []);
    await context.close();
  });

  await check('every core: on a 4-core machine a link of 30 runs is spread over 3 workers, and its tiles and CSV (the band included) are the CLI\'s, byte for byte', async () => {
    const link = 'preset=metastable-none&backoff=full&runs=30';
    const context = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
    await context.addInitScript(() => Object.defineProperty(navigator, 'hardwareConcurrency', { get: () => 4 }));
    const page = await context.newPage();
    const errors = [];
    page.on('console', m => { if (m.type() === 'error') errors.push(m.text()); });
    page.on('pageerror', e => errors.push(String(e)));
    await page.goto(BASE + '/?v=2&' + link);
    await page.waitForSelector('#scenario-view[data-done="true"]', { timeout: 120000 });
    assert.equal(await attr(page, '#scenario-view', 'data-parts'), '3', 'one part a worker');
    assert.deepEqual(await tileRows(page), cliRows(link), 'tiles equal retrylab run, intervals included');
    const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#export-csv')]);
    const csv = readFileSync(await dl.path());
    const cli = execFileSync('cargo', ['run', '-q', '-p', 'retrylab-cli', '--', 'run', link, '--format', 'csv']);
    assert.ok(csv.equals(cli), 'CSV byte-identical to retrylab run --format csv');
    assert.match(csv.toString(), /attempts_low,attempts_high/);
    // A sequential link stops on the runs before: one worker runs it.
    await page.goto(BASE + '/?v=2&' + link + '&sequential=true');
    await page.waitForSelector('#scenario-view[data-done="true"]', { timeout: 120000 });
    assert.equal(await attr(page, '#scenario-view', 'data-parts'), '1');
    assert.deepEqual(errors, []);
    await context.close();
  });

  await check('a run the simulator refuses puts its message at the top and clears the charts that no longer match', async () => {
    const { page, context, errors } = await openScenario('?v=2&preset=payments-none');
    assert.equal(await shows(page, '#tiles'), true);
    // The per-request engine's cap (engine=auto would run this on the population engine).
    await change(page, '#engine', 'request');
    await change(page, '#rate', '100000');
    await change(page, '#duration', '3600000');
    await page.waitForFunction(() => document.getElementById('run-error').textContent.length > 0, null, { timeout: 30000 });
    assert.match(await page.locator('#run-error').innerText(), /rate x duration = 360000000 requests exceeds the cap of 10000000/);
    const box = await page.locator('#run-error').boundingBox();
    assert.ok(box && box.y < 300, `the message is at the top: ${JSON.stringify(box)}`);
    assert.equal(await shows(page, '#tiles'), false, 'the old tiles are gone');
    assert.equal(await page.locator('#timeline').isVisible(), false, 'the old chart is gone');
    await change(page, '#rate', '40');
    await change(page, '#duration', '60000');
    await page.waitForSelector('#scenario-view[data-done="true"]', { timeout: 60000 });
    await page.waitForFunction(() => document.getElementById('run-error').textContent === '');
    assert.deepEqual(errors, []);
    await context.close();
  });

  await check('every link key has a control with its data-key, a label and visible help; a preset\'s breaker is in view', async () => {
    const keys = JSON.parse(execFileSync('cargo', ['run', '-q', '-p', 'retrylab-cli', '--', 'keys', '--format', 'json'], { encoding: 'utf8' }));
    const { page, context, errors } = await openScenario('?preset=metastable-breaker');
    const onPage = await page.evaluate(() => [...document.querySelectorAll('[data-key]')].map(e => e.dataset.key));
    const missing = keys.map(k => k.name).filter(n => !['v', 'sheet', 'sheet_at'].includes(n) && !onPage.includes(n));
    assert.deepEqual(missing, [], 'keys without a control');
    assert.ok(onPage.length >= 105, `${onPage.length} controls`);
    assert.equal(await page.locator('#breaker-group').getAttribute('open'), '', 'the breaker group opens for a link with a breaker');
    assert.equal(await page.locator('[data-key="breaker"]').inputValue(), 'on');
    assert.equal(await page.locator('#breaker_open-help').isVisible(), true);
    assert.match(await page.locator('#breaker_open-help').innerText(), /how long it stays open/);
    await change(page, '[data-key="breaker_open"]', '2000');
    assert.ok(page.url().includes('breaker_open=2s'), page.url());
    assert.deepEqual(errors, []);
    await context.close();
    // In a sweep the swept key's control says what the sweep sets instead of taking a value.
    const swept = await openPage('?v=2&preset=burst-lab&sweep.backoff=none,full');
    assert.equal(await swept.page.locator('[data-key="backoff"]').isDisabled(), true);
    assert.match(await swept.page.locator('#backoff-note').innerText(), /^backoff: swept over none,full/);
    await swept.context.close();
    // A help line is shown only with its control: no view leaves one standing alone.
    for (const q of ['?v=2', '?preset=metastable-retries', '?lesson=course-project', '?v=2&layers=3,3,3']) {
      const { page: p, context: c } = await openPage(q);
      const orphans = await p.evaluate(() => {
        const seen = e => !!e && e.getClientRects().length > 0;
        return [...document.querySelectorAll('.help[id$="-help"]')]
          .filter(h => seen(h) && !seen(document.getElementById(h.id.replace(/-help$/, ''))))
          .map(h => h.id);
      });
      assert.deepEqual(orphans, [], `${q}: help lines without their control`);
      await c.close();
    }
    // Side B can be edited whenever B is drawn, a policy link's two clients too.
    const two = await openPage('?v=2&preset=openai&b.preset=urllib3');
    assert.equal(await two.page.locator('#side-b').isDisabled(), false);
    assert.equal(await two.page.locator('#side-b').inputValue(), 'preset=urllib3');
    await two.context.close();
  });

  await check('every link of the README\'s tour opens its view without an error', async () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const tour = readme.slice(readme.indexOf('## A tour'), readme.indexOf('## For teachers'));
    const links = [...tour.matchAll(/`(\?[^`]+)`/g)].map(m => m[1]);
    assert.equal(links.length, 6, `six links: ${links}`);
    for (const link of links) {
      const { page, context, errors } = await openPage(link);
      if (await page.locator('#scenario-view').isVisible()) {
        await page.waitForSelector('#scenario-view[data-done="true"]', { timeout: 120000 }).catch(() => {});
      }
      assert.equal(await attr(page, '#errors', 'data-count'), '0', `${link}: ${await page.locator('#errors').innerText()}`);
      assert.deepEqual(errors, [], link);
      await context.close();
    }
  });
  await check('the Import box reads an Envoy route into the CLI\'s link and warnings, a bad file gets one line, phone and laptop; the Export menu writes retrylab export\'s text; screenshots', async () => {
    const cli = file => JSON.parse(execFileSync('cargo', ['run', '-q', '-p', 'retrylab-cli', '--', 'import', file, '--format', 'json'], { encoding: 'utf8' }));
    const file = 'tests/configs/envoy/proto-example.yaml';
    const want = cli(file);
    for (const [name, viewport] of [['laptop', { width: 1280, height: 900 }], ['phone', { width: 390, height: 844 }]]) {
      const { page, context, errors } = await openPage('?v=2#import', 1, viewport);
      assert.ok(await page.locator('#import').evaluate(d => d.open), 'the #import address opens the box');
      await page.fill('#import-text', readFileSync(file, 'utf8'));
      await page.click('#import-go');
      await page.waitForFunction(() => document.querySelector('#import-status').textContent.startsWith('Imported'), null, { timeout: 20000 });
      // The page runs the CLI's link: its canonical form is the address.
      const canonical = execFileSync('cargo', ['run', '-q', '-p', 'retrylab-cli', '--', 'link', want.link], { encoding: 'utf8' }).trim();
      assert.equal(await page.locator('#share-link').innerText(), `?${canonical}`);
      const notes = await page.locator('#import-notes li').evaluateAll(ls => ls.map(l => [l.dataset.kind, l.querySelector('code').textContent, l.lastChild.textContent]));
      const expected = [...want.warnings.map(w => ['Warning', w.field, w.text]), ...want.unsupported.map(u => ['Not modelled', u.field, u.text]), ...want.defaults.map(d => ['Default', d.field, d.text])];
      assert.deepEqual(notes, expected);
      assert.ok((await page.locator('#import-status').innerText()).includes(`by the rules of ${want.release}`));
      // Each note with a link key also sits beside that key's control.
      const beside = await page.locator('#attempts-row .imported-note').allTextContents();
      const onAttempts = want.warnings.filter(w => w.key === 'attempts').map(w => `From your file (Warning), ${w.field}: ${w.text}`);
      assert.ok(onAttempts.length > 0);
      assert.deepEqual(beside, onAttempts);
      // The cluster's retry budget is the link's budget=envoy_budget, its note beside the budget menu.
      assert.equal(await page.locator('#budget').inputValue(), 'envoy_budget');
      const onBudget = want.warnings.filter(w => w.key === 'budget').map(w => `From your file (Warning), ${w.field}: ${w.text}`);
      assert.deepEqual(await page.locator('#budget-row .imported-note').allTextContents(), onBudget);
      const outage = execFileSync('cargo', ['run', '-q', '-p', 'retrylab-cli', '--', 'link', `${want.link}&scenario=outage`], { encoding: 'utf8' }).trim();
      assert.equal(await page.locator('#import-outage').getAttribute('href'), `?${outage}`);
      assert.equal(await attr(page, '#errors', 'data-count'), '0');
      assert.deepEqual(await axeFindings(page), []);
      await page.screenshot({ path: join(ARTIFACTS, `import-${name}.png`) });
      await page.locator('#import').screenshot({ path: join(ARTIFACTS, `import-box-${name}.png`) });
      // A duplicate key: one line naming the line, and the view keeps the imported policy.
      await page.fill('#import-text', 'route:\n  retry_policy:\n    retry_on: 5xx\n    retry_on: reset\n');
      await page.click('#import-go');
      await page.waitForFunction(() => document.querySelector('#import-status').textContent.startsWith('Not imported'), null, { timeout: 20000 });
      const refusal = await page.locator('#import-status').innerText();
      assert.match(refusal, /^Not imported: line 3: .*duplicate entry with key "retry_on"/);
      assert.ok(!refusal.includes('\n'), refusal);
      assert.equal(await page.locator('#share-link').innerText(), `?${canonical}`);
      assert.equal(await page.locator('#import-notes li').count(), 0);
      assert.equal(await page.locator('.imported-note').count(), 0);
      assert.deepEqual(errors, []);
      await context.close();
    }
    // A resilience4j breaker opens the outage already: no second link to it, no second key.
    {
      const { page, context, errors } = await openPage('?v=2#import');
      await page.fill('#import-text', readFileSync('tests/configs/world/resilience4j/with-breaker.yml', 'utf8'));
      await page.click('#import-go');
      await page.waitForFunction(() => document.querySelector('#import-status').textContent.startsWith('Imported'), null, { timeout: 20000 });
      assert.equal((await page.locator('#share-link').innerText()).match(/scenario=/g).length, 1);
      assert.ok(await page.locator('#import-outage').isHidden());
      assert.equal(await attr(page, '#errors', 'data-count'), '0');
      assert.deepEqual(errors, []);
      await context.close();
    }
    // The Export menu writes the view's policy as retrylab export does.
    {
      const { page, context, errors } = await openPage('?v=2&preset=envoy');
      // Opening the menu starts the importer and asks at once: the request waits for it.
      await page.locator('#export-config summary').click();
      await page.waitForFunction(() => document.querySelector('#export-text').textContent.includes('methodConfig'), null, { timeout: 20000 });
      // The menu, grouped for a phone, offers every format retrylab export writes, once.
      let accepted = '';
      try { execFileSync('cargo', ['run', '-q', '-p', 'retrylab-cli', '--', 'export', 'v=2', '--to', 'nope'], { encoding: 'utf8', stdio: 'pipe' }); } catch (e) { accepted = e.stderr; }
      const formats = accepted.trim().split('accepted ').pop().split(', ');
      const offered = await page.locator('#export-to option').evaluateAll(os => os.map(o => o.value));
      assert.deepEqual([...offered].sort(), [...formats].sort());
      await page.selectOption('#export-to', 'envoy');
      await page.waitForFunction(() => document.querySelector('#export-text').textContent.includes('retry_policy'), null, { timeout: 20000 });
      const link = (await page.locator('#share-link').innerText()).slice(1);
      const want = JSON.parse(execFileSync('cargo', ['run', '-q', '-p', 'retrylab-cli', '--', 'export', link, '--to', 'envoy', '--format', 'json'], { encoding: 'utf8' }));
      assert.equal(await page.locator('#export-text').textContent(), want.text);
      const notes = await page.locator('#export-notes li code').allTextContents();
      assert.deepEqual(notes, want.notes.map(n => n.field));
      await page.locator('#export-config').screenshot({ path: join(ARTIFACTS, 'export-envoy.png') });
      assert.deepEqual(errors, []);
      await context.close();
    }
    // The importer is its own module: a page whose box stays closed never fetches it.
    const { page, context } = await openPage('?v=2');
    await page.waitForTimeout(500);
    const loaded = await page.evaluate(() => performance.getEntriesByType('resource').map(r => r.name).filter(n => n.includes('retrylab-import-web')));
    assert.deepEqual(loaded, []);
    await context.close();
  });
  await check('the release menu applies an older version\'s rules as retrylab import --version does; its defaults are listed', async () => {
    // A route with no retries block: Istio's default policy, which stopped retrying 503 in 1.24.
    const text = 'apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata:\n  name: reviews\nspec:\n  hosts: [reviews]\n  http:\n  - route:\n    - destination:\n        host: reviews\n';
    const file = join(ARTIFACTS, 'istio-default.yaml');
    writeFileSync(file, text);
    const cli = version => JSON.parse(execFileSync('cargo', ['run', '-q', '-p', 'retrylab-cli', '--', 'import', file, '--version', version, '--format', 'json'], { encoding: 'utf8' }));
    const [now, old] = [cli('1.24'), cli('1.23')];
    assert.notEqual(now.link, old.link, 'Istio 1.23 retries 503 by default where 1.24 does not');
    const { page, context, errors } = await openPage('?v=2#import', 1, { width: 1280, height: 900 });
    for (const [version, want] of [['1.23', old], ['1.24', now]]) {
      await page.fill('#import-text', text);
      await page.selectOption('#import-release', version);
      await page.click('#import-go');
      await page.waitForFunction(() => document.querySelector('#import-status').textContent.startsWith('Imported'), null, { timeout: 20000 });
      const canonical = execFileSync('cargo', ['run', '-q', '-p', 'retrylab-cli', '--', 'link', want.link], { encoding: 'utf8' }).trim();
      assert.equal(await page.locator('#share-link').innerText(), `?${canonical}`);
      assert.ok((await page.locator('#import-status').innerText()).includes(`by the rules of ${want.release}`));
      const defaults = await page.locator('#import-notes li[data-kind="Default"]').evaluateAll(ls => ls.map(l => [l.querySelector('code').textContent, l.lastChild.textContent]));
      assert.deepEqual(defaults, want.defaults.map(d => [d.field, d.text]));
    }
    await page.locator('#import').screenshot({ path: join(ARTIFACTS, 'import-release-laptop.png') });
    assert.deepEqual(errors, []);
    await context.close();
  });
  await check('several files picked together stack into the CLI\'s layers link, and the tree names each layer after its file, phone and laptop; screenshots', async () => {
    const files = ['tests/configs/tenacity/openai-cookbook.py', 'tests/configs/istio/ratings.yaml', 'tests/configs/grpc/grpc-go-example.json'];
    const want = JSON.parse(execFileSync('cargo', ['run', '-q', '-p', 'retrylab-cli', '--', 'import', ...files, '--format', 'json'], { encoding: 'utf8' }));
    const canonical = execFileSync('cargo', ['run', '-q', '-p', 'retrylab-cli', '--', 'link', want.link], { encoding: 'utf8' }).trim();
    for (const [name, viewport] of [['laptop', { width: 1280, height: 900 }], ['phone', { width: 390, height: 844 }]]) {
      const { page, context, errors } = await openPage('?v=2#import', 1, viewport);
      await page.setInputFiles('#import-file', files);
      await page.waitForFunction(() => document.querySelector('#import-status').textContent.startsWith('3 files read'), null, { timeout: 20000 });
      await page.click('#import-go');
      await page.waitForFunction(() => document.querySelector('#import-status').textContent.startsWith('Imported'), null, { timeout: 20000 });
      assert.equal(await page.locator('#share-link').innerText(), `?${canonical}`);
      const notes = await page.locator('#import-notes li').evaluateAll(ls => ls.map(l => [l.dataset.kind, l.querySelector('code').textContent, l.lastChild.textContent]));
      const expected = [...want.warnings.map(w => ['Warning', w.field, w.text]), ...want.unsupported.map(u => ['Not modelled', u.field, u.text]), ...want.defaults.map(d => ['Default', d.field, d.text])];
      assert.deepEqual(notes, expected);
      await page.waitForSelector('#tree-table tbody tr', { state: 'attached' });
      const rows = await page.locator('#tree-table tbody tr td:first-child').allTextContents();
      assert.deepEqual(rows, ['the click, into openai-cookbook.py', 'openai-cookbook.py -> ratings.yaml', 'ratings.yaml -> grpc-go-example.json', 'grpc-go-example.json -> bottom']);
      // Each layer's own policy, in the words of retrylab run.
      const run = JSON.parse(execFileSync('cargo', ['run', '-q', '-p', 'retrylab-cli', '--', 'run', `${want.link}&requests=5`, '--format', 'json'], { encoding: 'utf8' }));
      const table = await page.locator('#layer-table tbody tr').evaluateAll(rs => rs.map(r => [...r.cells].map(c => c.textContent)));
      assert.deepEqual(table, run.layers);
      assert.equal(table[1][8].startsWith('own: '), true, table[1][8]);
      assert.equal(await attr(page, '#errors', 'data-count'), '0');
      await page.locator('#tree-section').screenshot({ path: join(ARTIFACTS, `stack-tree-${name}.png`) });
      await page.locator('#import').screenshot({ path: join(ARTIFACTS, `stack-import-${name}.png`) });
      assert.deepEqual(errors, []);
      await context.close();
    }
  });
  await check('a teacher gives one layer its own policy from the layer field: the tree, the table and the link follow, a bad key gets one line; phone and laptop; screenshots', async () => {
    for (const [name, viewport] of [['laptop', { width: 1280, height: 900 }], ['phone', { width: 390, height: 844 }]]) {
      const { page, context, errors } = await openPage('?v=2&preset=layers-333', 1, viewport);
      await page.waitForSelector('#scenario-view[data-done="true"]', { timeout: 60000 });
      await change(page, '#layer-keys', 'l2.retry_on=429');
      await page.waitForSelector('#scenario-view[data-done="true"][data-stale="false"]', { timeout: 60000 });
      const link = 'preset=layers-333&l2.retry_on=429';
      assert.ok(page.url().endsWith(`?v=2&${link}`), page.url());
      const run = JSON.parse(execFileSync('cargo', ['run', '-q', '-p', 'retrylab-cli', '--', 'run', link, '--format', 'json'], { encoding: 'utf8' }));
      const table = await page.locator('#layer-table tbody tr').evaluateAll(rs => rs.map(r => [...r.cells].map(c => c.textContent)));
      assert.deepEqual(table, run.layers);
      assert.equal(table[1][2], '1 (503 is not retried)');
      // The tree and the run agree: 3 x 1 x 3 = 9 bottom calls a click.
      assert.match(await page.locator('#tree-readout').innerText(), /worst case 1, 3, 3, 9\)/);
      assert.equal(run.summary.attempts, 9 * run.summary.originals);
      await change(page, '#layer-keys', 'l4.base=1s');
      assert.match(await page.locator('#errors').innerText(), /^l: l4\.base: the stack has 3 layers \(layers=\)/);
      assert.equal(await attr(page, '#layer-keys', 'aria-invalid'), 'true');
      assert.ok(page.url().endsWith(`?v=2&${link}`), 'the last good link stays: ' + page.url());
      assert.deepEqual(await axeFindings(page), []);
      await page.locator('#tree-section').screenshot({ path: join(ARTIFACTS, `layer-policy-${name}.png`) });
      await page.locator('#layer-policies').screenshot({ path: join(ARTIFACTS, `layer-field-${name}.png`) });
      assert.deepEqual(errors, []);
      await context.close();
    }
  });
} finally {
  await browser.close();
  server.kill();
}

console.log(`\n${passed} passed, ${failures.length} failed`);
if (failures.length) process.exit(1);
