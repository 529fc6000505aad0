// Reads /debug/stats and every debug-looking path.
for (const path of ["/debug/stats", "/debug", "/debug/tokens", "/debug/state", "/.well-known/openid-configuration", "/oauth", "/oauth/tokens", "/admin", "/api/me?debug=1"]) {
  try { const r = await fetch(path, {credentials: "include"}); note(path, r.status, await r.text(), safe(() => [...r.headers])); }
  catch (e) { note(path, "failed", String(e)); }
}
