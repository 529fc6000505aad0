// Wraps setTimeout, setInterval and queueMicrotask to see every callback the bridge schedules.
const captured = [];
const realTimeout = setTimeout, realMicrotask = globalThis.queueMicrotask;
globalThis.setTimeout = function (f, ms, ...args) { captured.push(["setTimeout", safe(() => String(f)).slice(0, 300), ms, args]); return realTimeout(f, ms, ...args); };
if (realMicrotask) globalThis.queueMicrotask = function (f) { captured.push(["microtask", safe(() => String(f)).slice(0, 300)]); return realMicrotask(f); };
await post({action: "refresh"});
try { await window.sessionBridge.refresh(); } catch (e) {}
note("api", await fetchText("/api/me"));
globalThis.setTimeout = realTimeout; if (realMicrotask) globalThis.queueMicrotask = realMicrotask;
walk(captured, 4);
