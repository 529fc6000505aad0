// Listens for every event type and spies on dispatchEvent while refreshing and failing.
const events = [];
const types = ["sessionbridge:signedout", "sessionbridge:refreshed", "message", "error", "unhandledrejection", "load", "storage", "cookiechange", "sessionbridge:refresh"];
for (const t of types) window.addEventListener(t, e => events.push([t, e]));
const realDispatch = window.dispatchEvent;
try { window.dispatchEvent = function (e) { events.push(["dispatch", e]); return realDispatch.call(window, e); }; } catch (e) { events.push(String(e)); }
await post({action: "refresh"});
await post({action: "bad"});
await sleep(50);
for (const e of events) walk(e, 4);
note("events", events.length);
