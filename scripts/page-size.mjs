// The page's size as a reader downloads it: the wasm, JavaScript and CSS in dist/ (or $DIST),
// each gzipped at level 9 (Node's zlib). The importer (retrylab-import-web*), fetched only when
// the Import box opens, is counted apart and not in the page's total. Figures in KB of 1024 bytes, as every report here gives
// them. Usage: node scripts/page-size.mjs [--max KB]   (after `trunk build --release`); with
// --max it fails when the total is over, so the build keeps to the page's budget.
import { readdirSync, readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';

/** Gzipped bytes of the wasm, the JavaScript and the CSS in `dist`, and of the importer. */
export function pageSize(dist) {
  const sizes = { wasm: 0, js: 0, css: 0, importer: 0 };
  for (const f of readdirSync(dist)) {
    const kind = f.startsWith('retrylab-import-web') ? 'importer' : f.endsWith('.wasm') ? 'wasm' : f.endsWith('.js') ? 'js' : f.endsWith('.css') ? 'css' : null;
    if (kind) sizes[kind] += gzipSync(readFileSync(`${dist}/${f}`), { level: 9 }).length;
  }
  return { ...sizes, total: sizes.wasm + sizes.js + sizes.css };
}

const kb = n => (n / 1024).toFixed(1);
/** One line: each part and the total. */
export const describe = s => `wasm ${kb(s.wasm)} KB, js ${kb(s.js)} KB, css ${kb(s.css)} KB, total ${kb(s.total)} KB (${s.total} bytes); the importer, on demand, ${kb(s.importer)} KB`;

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const s = pageSize(process.env.DIST || 'dist');
  console.log(`page size (gzip -9): ${describe(s)}`);
  const at = process.argv.indexOf('--max');
  if (at > 0) {
    const max = Number(process.argv[at + 1]);
    if (!(max > 0)) { console.error('--max: a size in KB, above 0'); process.exit(2); }
    if (s.total > max * 1024) {
      console.error(`the page is ${kb(s.total)} KB gzip, over its limit of ${max} KB: see ARCHITECTURE.md, "The page's budget"`);
      process.exit(1);
    }
  }
}
