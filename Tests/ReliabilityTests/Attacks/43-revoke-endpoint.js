// Calls the revocation endpoint with every value the page holds (cookies, csrf, guesses).
const values = document.cookie.split("; ").map(p => p.slice(p.indexOf("=") + 1)).concat(["sbrt_", "x"]);
for (const v of values) {
  try {
    const r = await fetch("/oauth/revoke", {method: "POST", credentials: "include", headers: {"Content-Type": "application/x-www-form-urlencoded"}, body: "token=" + encodeURIComponent(v)});
    note("revoke", v, r.status, await r.text());
  } catch (e) { note("revoke failed", String(e)); }
}
note("status", await post({action: "status"}));
