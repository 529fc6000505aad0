// Sends every exotic value type inside bodies.
const values = [10n, Symbol("s"), NaN, Infinity, -0, new Date(), /re/g, new Map([[1, 2]]), new Set([1]), new ArrayBuffer(8),
  new Uint8Array([1, 2]), function f() {}, class K {}, new WeakMap(), Promise.resolve(1), new Error("inner"), globalThis, window.webkit,
  window.webkit.messageHandlers, window.webkit.messageHandlers.session, document, location];
const results = [];
for (const v of values) {
  try { results.push([safe(() => String(v)).slice(0, 80), "ok", await window.webkit.messageHandlers.session.postMessage({action: "status", v})]); }
  catch (e) { results.push([safe(() => String(v)).slice(0, 80), "err", e && e.code, String(e)]); }
}
note("results", results);
