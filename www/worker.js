// Retry Lab's simulation worker. It loads the page's own wasm (the page sends the compiled
// module and the URL of its glue script) and hands control to it; the wasm reads and writes
// every message after that (crates/retrylab-web/src/exec.rs).
self.onmessage = async (e) => {
  self.onmessage = null;
  const wasm = await import(e.data.glue);
  await wasm.default({ module_or_path: e.data.module });
  wasm.worker_start();
};
