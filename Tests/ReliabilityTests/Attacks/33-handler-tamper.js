// Replaces postMessage and messageHandlers with spies, then drives the standard refresh script.
const spied = [];
const h = window.webkit.messageHandlers.session;
const real = h.postMessage;
for (const attempt of [
  () => { h.postMessage = function (b) { spied.push(b); return real.call(h, b).then(v => { spied.push(v); return v; }); }; },
  () => Object.defineProperty(h, "postMessage", {value: function (b) { spied.push(b); return real.call(h, b); }}),
  () => { window.webkit.messageHandlers = { session: { postMessage: b => { spied.push(b); return Promise.resolve({}); } } }; },
  () => { window.webkit = { messageHandlers: {} }; },
  () => { delete window.webkit; },
  () => Object.setPrototypeOf(h, { postMessage: () => "hijacked" }),
]) {
  try { attempt(); spied.push("attempt ok"); } catch (e) { spied.push("attempt failed " + e); }
  try { spied.push(await window.sessionBridge.refresh()); } catch (e) { spied.push(e); }
}
try { spied.push(await real.call({}, {action: "refresh"})); } catch (e) { spied.push(e); }
try { spied.push(await real.call(h, {action: "status"})); } catch (e) { spied.push(e); }
for (const s of spied) walk(s, 3);
