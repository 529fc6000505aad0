// A hostile page looks everywhere for the refresh token, and finds nothing.
const found = [];
const look = (where, value) => { if (/sbrt_/.test(String(value))) found.push(where); };
look("document.cookie", document.cookie);
for (const name of Object.getOwnPropertyNames(globalThis)) {
  try { look("global " + name, JSON.stringify(globalThis[name])); } catch (e) { look("global " + name, e.message); }
}
// A trap on every object for a property native code might set while building a reply.
Object.defineProperty(Object.prototype, "refresh_token", { set(value) { look("setter", value); }, configurable: true });
const reply = await window.webkit.messageHandlers.session.postMessage({ action: "refresh" });
look("reply", JSON.stringify(reply));
for (const action of ["refresh_token", "token", "dump"]) {
  try { await window.webkit.messageHandlers.session.postMessage({ action }); }
  catch (e) { look("error " + action, e.message + e.stack + JSON.stringify(e)); }
}
delete Object.prototype.refresh_token;
console.log("places where a refresh token was found:", found.length ? found.join(", ") : "none");
