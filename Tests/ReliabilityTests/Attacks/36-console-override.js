// Replaces console methods to capture anything native code might log into the page.
const captured = [];
const real = {};
for (const m of ["log", "info", "warn", "error", "debug", "trace"]) {
  real[m] = console[m];
  console[m] = (...args) => { captured.push([m, ...args.map(a => safe(() => String(a)))]); };
}
await post({action: "refresh"});
await post({action: "nope"});
try { await window.sessionBridge.refresh(); } catch (e) {}
await sleep(50);
for (const m of Object.keys(real)) console[m] = real[m];
note("captured", captured);
