// Tries to shadow or overwrite the HttpOnly session cookie and plant refresh-token cookies, then reads back.
const writes = [
  "__Host-session=forged; Path=/; Secure",
  "__Host-session=forged2; Path=/app; Secure",
  "__Host-web_refresh=sbrt_planted; Path=/; Secure",
  "refresh_token=sbrt_guess; Path=/",
  "session_expires=0; Path=/",
  "csrf_token=attacker; Path=/",
  "__Secure-x=1; Path=/",
  "a=b; Domain=127.0.0.1; Path=/",
  "theme=dark; Path=/; Max-Age=9999999999",
];
for (const w of writes) { document.cookie = w; note("wrote", w, "now", document.cookie); }
await post({action: "refresh"});
note("after refresh", document.cookie);
const me = await fetchText("/api/me");
note("api/me with planted cookies", me);
