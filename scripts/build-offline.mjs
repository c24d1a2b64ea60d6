// Builds the single offline file, dist-offline/retrylab.html, from Trunk's dist/: the CSS, the
// JavaScript glue, the wasm (base64) and the worker script inlined into one HTML page that
// works when opened from disk (file://), so a course can hand it out.
//
// The page starts the glue from a Blob URL with the wasm compiled from the inlined bytes, and
// tells the wasm where its glue and worker script are (window.retrylabGlue and
// window.retrylabWorker, Blob URLs too), so the simulation workers start from the file as well.
// Where a browser refuses workers from a file, the page runs the simulations itself.
// Usage: node scripts/build-offline.mjs   (after `trunk build --release`)
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';

const dist = new URL('../dist/', import.meta.url);
const out = new URL('../dist-offline/', import.meta.url);
const html = readFileSync(new URL('index.html', dist), 'utf8');
const find = re => {
  const m = html.match(re);
  if (!m) throw new Error(`dist/index.html: ${re} not found (run trunk build --release first)`);
  return m[1].replace(/^\//, '');
};
// Trunk minifies the release page's HTML: attributes may lose their quotes and change order.
const css = readFileSync(new URL(find(/<link[^>]*\bhref="?([^"\s>]+\.css)"?[^>]*>/), dist), 'utf8');
const glue = readFileSync(new URL(find(/import init,\s*\*\s*as bindings from\s*["'`]([^"'`]+\.js)["'`]/), dist), 'utf8');
const wasm = readFileSync(new URL(find(/module_or_path:\s*["'`]([^"'`]+\.wasm)["'`]/), dist)).toString('base64');
const worker = readFileSync(new URL('worker.js', dist), 'utf8');

// A JavaScript string literal that cannot end the <script> element it sits in.
const literal = s => JSON.stringify(s).replace(/</g, '\\u003c');
// From a file, Chromium starts a classic worker from a Blob URL (not a module worker), and that
// worker can import a data: URL (not a Blob URL): so the glue is a data: URL, for both.
const start = `<script type="module">
window.retrylabGlue = 'data:text/javascript;base64,' + ${literal(Buffer.from(glue).toString('base64'))};
window.retrylabWorker = URL.createObjectURL(new Blob([${literal(worker)}], { type: 'text/javascript' }));
window.retrylabWorkerType = 'classic';
const bytes = Uint8Array.from(atob(${literal(wasm)}), c => c.charCodeAt(0));
const module = await WebAssembly.compile(bytes);
const glue = await import(window.retrylabGlue);
await glue.default({ module_or_path: module });
window.wasmBindings = glue;
dispatchEvent(new CustomEvent('TrunkApplicationStarted'));
</script>`;

// A <link> tag's rel, quoted or not.
const relOf = tag => (tag.match(/\brel=(?:"([^"]*)"|([^\s>]+))/) || []).slice(1).find(Boolean);
const inlined = new Set(['stylesheet', 'modulepreload', 'preload']);
let page = html
  .replace(/<link\b[^>]*>/g, tag => relOf(tag) === 'stylesheet' ? `<style>\n${css}\n</style>`
    : inlined.has(relOf(tag)) ? '' : tag)
  .replace(/<script type="?module"?>[\s\S]*?<\/script>/, () => start);
for (const tag of page.match(/<link\b[^>]*>/g) || []) {
  if (inlined.has(relOf(tag))) throw new Error(`the offline page still refers to rel=${relOf(tag)}`);
}
mkdirSync(out, { recursive: true });
writeFileSync(new URL('retrylab.html', out), page);
console.log(`dist-offline/retrylab.html: ${(page.length / 1024).toFixed(0)} KB`);
