// Plants getters on Object.prototype for reply fields and on the handler's prototype before replies arrive.
const seenReads = [];
const h = window.webkit.messageHandlers.session;
const proto = Object.getPrototypeOf(h);
for (const n of ["resolve", "reject", "reply", "callback", "id", "callId", "__reply"]) {
  try { Object.defineProperty(Object.prototype, n, {configurable: true, get() { seenReads.push(["get", n, safe(() => JSON.stringify(this)).slice(0, 500)]); return undefined; }, set(v) { seenReads.push(["set", n, v]); }}); }
  catch (e) { seenReads.push(String(e)); }
}
try { Object.defineProperty(proto, "then", {configurable: true, get() { seenReads.push("proto then"); return undefined; }}); } catch (e) { seenReads.push(String(e)); }
await post({action: "refresh"});
await post({action: "status"});
for (const n of ["resolve", "reject", "reply", "callback", "id", "callId", "__reply"]) delete Object.prototype[n];
walk(seenReads, 4);
