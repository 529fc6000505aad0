// @document foreign
// @expect no-refresh
// From an origin not on the allow-list, tries the server's endpoints with ambient cookies.
for (const [path, method] of [["/oauth/token", "POST"], ["/session/refresh", "POST"], ["/api/me", "GET"], ["/debug/stats", "GET"]]) {
  for (const base of [location.origin, location.origin.replace("localhost", "127.0.0.1")]) {
    try {
      const r = await fetch(base + path, {method, credentials: "include", headers: {"Content-Type": "application/x-www-form-urlencoded"},
        body: method === "POST" ? "grant_type=refresh_token" : undefined});
      note(base + path, r.status, await r.text());
    } catch (e) { note(base + path, "failed", String(e)); }
  }
}
note("cookie", document.cookie);
