// Takes the standard sessionBridge object apart and calls its functions with hostile arguments.
const sb = window.sessionBridge;
note("type", typeof sb, safe(() => Reflect.ownKeys(sb).map(String)));
walk(sb, 4);
for (const k of safe(() => Reflect.ownKeys(sb)) || []) {
  const f = sb[k];
  if (typeof f === "function") {
    note(String(k), Function.prototype.toString.call(f));
    for (const args of [[], [{action: "refresh", refresh_token: true}], ["sbrt_"], [() => 0]]) {
      try { const r = f.apply(sb, args); note(String(k), "returned", await withTimeout(Promise.resolve(r), 5000)); }
      catch (e) { note(String(k), "threw", String(e), e && e.code); }
    }
  }
}
