// Browser measurement of the page (not a test): the page's size (gzip), time to the first chart
// (and when its files arrived), the control change's own task, the time from a control change to the redrawn scenario view on payments-jitter and
// payments-none (p50, p95), the long tasks of a cold start-up (also under a 2x and 4x CPU slowdown), the longest main-thread task
// while controls change on every scenario preset, and the whole 2015 sweep's wall time in the page (its workers) beside
// native `retrylab sweep` (target/release/retrylab, when built).
// Usage: node scripts/bench-page.mjs   (after `trunk build --release`; serves dist/, or $DIST)
import { chromium } from 'playwright-core';
import { spawn, execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join, extname } from 'node:path';
import { gzipSync } from 'node:zlib';
import { pageSize, describe } from './page-size.mjs';

const PORT = 8098;
const BASE = `http://127.0.0.1:${PORT}`;
const DIST = process.env.DIST || 'dist';
const server = spawn('python3', ['-m', 'http.server', String(PORT), '--bind', '127.0.0.1', '--directory', DIST], { stdio: 'ignore' });
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
/** The page's budget as a reader feels it: a cold load (a fresh context, no cache) of the
 *  lab's first chart under a slow link (1.6 Mbit/s down, 750 kbit/s up, 150 ms round trip)
 *  and a 4x CPU slowdown, through a CDP session; target 3 s. Three loads, each reported. */
async function firstChartEmulated() {
  // Served gzipped, as any static host serves it (python's http.server does not compress).
  const types = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm', '.css': 'text/css' };
  const gz = createServer((req, res) => {
    const path = new URL(req.url, 'http://x').pathname;
    const file = join(DIST, path === '/' ? 'index.html' : path);
    if (!existsSync(file)) { res.writeHead(404); res.end(); return; }
    res.writeHead(200, { 'content-type': types[extname(file)] || 'application/octet-stream', 'content-encoding': 'gzip' });
    res.end(gzipSync(readFileSync(file), { level: 9 }));
  }).listen(PORT + 2, '127.0.0.1');
  const times = [];
  for (let i = 0; i < 3; i++) {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 150, downloadThroughput: 1.6e6 / 8, uploadThroughput: 750e3 / 8 });
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
    await page.goto(`http://127.0.0.1:${PORT + 2}/?v=2`);
    await page.waitForSelector('body[data-ready-ms]', { timeout: 120000 });
    times.push(Number(await page.evaluate(() => document.body.dataset.readyMs)));
    await context.close();
  }
  gz.close();
  console.log(`first chart, cold, served gzipped, 1.6 Mbit/s and 150 ms RTT, 4x CPU slowdown, 390x844 (target 3000 ms): ${times.map(t => t.toFixed(0)).join(', ')} ms`);
}
const pct = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(p * s.length))]; };
try {
  for (let i = 0; i < 100; i++) { try { if ((await fetch(BASE + '/')).ok) break; } catch {} await new Promise(r => setTimeout(r, 100)); }
  console.log(`size (gzip -9): ${describe(pageSize(DIST))}`);
  await firstChartEmulated();
  const context = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
  await context.addInitScript(() => {
    window.__longTasks = [];
    new PerformanceObserver(list => { for (const e of list.getEntries()) window.__longTasks.push(e.duration); })
      .observe({ type: 'longtask', buffered: true });
    // Trunk's loader fires this once the wasm is compiled, instantiated and its start has run.
    addEventListener('TrunkApplicationStarted', () => { window.__wasmReady = performance.now(); });
  });
  const page = await context.newPage();
  const t0 = Date.now();
  await page.goto(BASE + '/?v=2');
  await page.waitForSelector('body[data-ready="true"]');
  const readyMs = await page.evaluate(() => document.body.dataset.readyMs);
  console.log(`first chart (schedule, default link): drawn ${readyMs} ms after navigation began (page clock); ${Date.now() - t0} ms as the driver saw it`);
  // Where that time went: the files arriving (resource timing), then the page's own start-up.
  const arrived = await page.evaluate(() => performance.getEntriesByType('resource')
    .filter(e => /\.(wasm|js)$/.test(e.name) && !e.name.endsWith('worker.js'))
    .map(e => `${e.name.endsWith('.wasm') ? 'wasm' : 'glue'} ${e.startTime.toFixed(0)}-${e.responseEnd.toFixed(0)} ms`).join(', '));
  const wasmReady = await page.evaluate(() => window.__wasmReady?.toFixed(0));
  console.log(`  of which the files arrived: ${arrived}; the wasm was compiled and started at ${wasmReady} ms (page clock)`);
  await page.waitForTimeout(500);
  const startup = await page.evaluate(() => window.__longTasks.map(Math.round));
  console.log(`long tasks during a cold start-up (first load in a fresh browser): ${startup.length ? startup.join(', ') + ' ms' : 'none'}`);
  // More cold starts, each in a fresh context, at 1x and under Chromium's CPU slowdown (a slower
  // laptop than this machine): the first chart's time and the long tasks of each.
  for (const rate of [1, 2, 4]) {
    const rows = [];
    for (let k = 0; k < (rate === 1 ? 3 : 2); k++) {
      const ctx = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
      await ctx.addInitScript(() => {
        window.__longTasks = [];
        new PerformanceObserver(list => { for (const e of list.getEntries()) window.__longTasks.push(e.duration); })
          .observe({ type: 'longtask', buffered: true });
      });
      const p = await ctx.newPage();
      const cdp = await ctx.newCDPSession(p);
      await cdp.send('Emulation.setCPUThrottlingRate', { rate });
      await p.goto(BASE + '/?v=2');
      await p.waitForSelector('body[data-ready="true"]', { timeout: 60000 });
      await p.waitForTimeout(500);
      const ms = await p.evaluate(() => document.body.dataset.readyMs);
      const long = await p.evaluate(() => window.__longTasks.map(Math.round));
      rows.push(`${ms} ms (${long.length ? 'long tasks ' + long.join(' + ') + ' ms' : 'no long task'})`);
      await ctx.close();
    }
    console.log(`cold start at ${rate}x CPU slowdown, fresh contexts: first chart ${rows.join('; ')}`);
  }
  for (const [preset, n] of [['payments-jitter', 20], ['payments-none', 10]]) {
    const t1 = Date.now();
    await page.goto(`${BASE}/?v=2&preset=${preset}`);
    await page.waitForSelector('#scenario-view[data-done="true"]', { timeout: 60000 });
    console.log(`${preset}: first result ${Date.now() - t1} ms after navigation`);
    const times = [], own = [];
    for (let i = 0; i < n; i++) {
      const [ms, task] = await page.evaluate(async seed => {
        const el = document.getElementById('seed');
        const view = document.getElementById('scenario-view');
        const t = performance.now();
        el.value = String(seed);
        // The handler runs inside dispatchEvent; reading a layout property then forces the
        // style and layout its writes caused, so `task` is the change's own main-thread work.
        el.dispatchEvent(new Event('input', { bubbles: true }));
        void document.body.offsetHeight;
        const task = performance.now() - t;
        await new Promise(resolve => {
          const check = () => (view.dataset.done === 'true' && view.dataset.stale === 'false') ? resolve() : requestAnimationFrame(check);
          requestAnimationFrame(check);
        });
        return [performance.now() - t, task];
      }, 100 + i);
      times.push(ms);
      own.push(task);
    }
    console.log(`${preset}: control change to redrawn view, p50 ${pct(times, 0.5).toFixed(0)} ms, p95 ${pct(times, 0.95).toFixed(0)} ms (${n} changes of seed)`);
    console.log(`${preset}: the change's own task (input handler, style and layout), p50 ${pct(own, 0.5).toFixed(1)} ms, p95 ${pct(own, 0.95).toFixed(1)} ms`);
  }
  // The longest task after the page is ready, while the seed changes twice on every scenario preset.
  // `retrylab presets` prints each preset's name, then the keys it sets; scenario presets set one.
  const lines = execFileSync('target/release/retrylab', ['presets']).toString().split('\n');
  const presets = lines.flatMap((l, i) => /^[a-z0-9-]+\s/.test(l) && /scenario=/.test(lines[i + 1] || '') ? [l.split(/\s+/)[0]] : []);
  const worst = [];
  for (const preset of presets) {
    await page.goto(`${BASE}/?v=2&preset=${preset}`);
    await page.waitForSelector('body[data-ready="true"]');
    const ready = await page.evaluate(() => window.__longTasks.length);
    if (!(await page.locator('#scenario-view').isVisible())) continue;
    await page.waitForSelector('#scenario-view[data-done="true"]', { timeout: 120000 });
    for (const seed of [7, 8]) {
      await page.evaluate(s => { const el = document.getElementById('seed'); el.value = String(s); el.dispatchEvent(new Event('input', { bubbles: true })); }, seed);
      await page.waitForSelector('#scenario-view[data-done="true"][data-stale="false"]', { timeout: 120000 });
    }
    const long = await page.evaluate(n => window.__longTasks.slice(n), ready);
    worst.push([preset, Math.round(Math.max(0, ...long))]);
  }
  console.log(`longest main-thread task after load while the seed changes twice: ${worst.map(([p, ms]) => `${p} ${ms} ms`).join(', ')}`);
  // The whole 2015 sweep in the page, from the moment the page hands it to its workers
  // (`data-flights`) to the moment its view is drawn in full (`data-done`), both on the page's
  // clock. The end is caught by a MutationObserver: Playwright's waitForSelector polls at up
  // to 500 ms intervals on a long wait, which would add up to half a second to the figure.
  const study = 'preset=occ-2015&sweep.clients=10..190/10&sweep.backoff=none,exponential,full,equal,decorrelated';
  const walls = [];
  for (let i = 0; i < 5; i++) {
    await page.goto(`${BASE}/?v=2&${study}`);
    walls.push(await page.evaluate(() => new Promise(resolve => {
      const v = document.getElementById('scenario-view');
      const check = () => {
        if (v.dataset.done !== 'true') return false;
        resolve(performance.now() - Number(v.dataset.flights.split(' ').pop().split(',')[0]));
        return true;
      };
      if (!check()) new MutationObserver((_, obs) => { if (check()) obs.disconnect(); }).observe(v, { attributes: true, attributeFilter: ['data-done'] });
    })));
  }
  const cores = await page.evaluate(() => navigator.hardwareConcurrency);
  console.log(`2015 sweep in the page (${cores} workers): ${walls.map(w => (w / 1000).toFixed(2)).join(', ')} s`);
  if (existsSync('target/release/retrylab')) {
    const nat = [];
    for (let i = 0; i < 5; i++) {
      const t = Date.now();
      execFileSync('target/release/retrylab', ['sweep', study]);
      nat.push(Date.now() - t);
    }
    console.log(`2015 sweep native (retrylab sweep, all cores): ${nat.map(w => (w / 1000).toFixed(2)).join(', ')} s`);
  }
} finally {
  await browser.close();
  server.kill();
}
