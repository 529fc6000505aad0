// Replaces Error and its subclasses with spies, sets Error.prepareStackTrace, then forces failures.
const spied = [];
const RealError = Error, RealTypeError = TypeError;
Error.prepareStackTrace = function (e, frames) { spied.push("prepare " + String(e)); return String(frames); };
Error.stackTraceLimit = 1000;
globalThis.Error = function SpyError(message) { spied.push("Error(" + message + ")"); const e = new RealError(message); return e; };
globalThis.Error.prototype = RealError.prototype;
globalThis.TypeError = function SpyTypeError(message) { spied.push("TypeError(" + message + ")"); return new RealTypeError(message); };
Object.defineProperty(RealError.prototype, "message", { configurable: true, set(v) { spied.push("set message " + v); Object.defineProperty(this, "message", {value: v, writable: true, configurable: true}); } });
for (const body of [{action: "nope"}, 7, {action: "refresh", deep: {a: {b: () => 0}}}]) {
  try { await window.webkit.messageHandlers.session.postMessage(body); } catch (e) { spied.push(e); spied.push(safe(() => e.stack)); }
}
try { await window.sessionBridge.refresh(); } catch (e) { spied.push(e); }
globalThis.Error = RealError; globalThis.TypeError = RealTypeError;
delete RealError.prototype.message;
for (const s of spied) walk(s, 3);
