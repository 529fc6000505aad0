// Calls the web app's own refresh endpoint with the page's cookies (no web refresh cookie exists).
for (const method of ["POST", "GET", "PUT"]) {
  try { const r = await fetch("/session/refresh", {method, credentials: "include"}); note(method, r.status, await r.text()); }
  catch (e) { note(method, "failed", String(e)); }
}
note("cookies after", document.cookie);
