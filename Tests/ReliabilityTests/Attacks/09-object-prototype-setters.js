// Plants setters and getters on Object.prototype for every name a secret might travel under.
const names = ["refresh_token", "refreshToken", "token", "value", "secret", "ok", "expiresAt", "signedIn", "code", "message",
  "access_token", "body", "data", "result", "reply", "error", "grant", "sbrt", "vault", "record", "then", "stack", "name", "retryable"];
const caught = [];
for (const n of names) {
  try {
    Object.defineProperty(Object.prototype, n, {
      configurable: true,
      set(v) { caught.push(n + "=" + String(v)); Object.defineProperty(this, n, {value: v, writable: true, enumerable: true, configurable: true}); },
      get() { caught.push("get " + n); return undefined; },
    });
  } catch (e) { caught.push("define " + n + ": " + e); }
}
for (const body of [{action: "refresh"}, {action: "status"}, {action: "bad"}, ["refresh"], "refresh"]) {
  try { const r = await window.webkit.messageHandlers.session.postMessage(body); caught.push(r); walk(r, 3); }
  catch (e) { caught.push(e); walk(e, 3); }
  await sleep(30);
}
for (const n of names) delete Object.prototype[n];
for (const c of caught) walk(c, 3);
note("caught", caught.length);
