// Reads every response header and body the page can reach, Set-Cookie included if exposed.
for (const path of ["/api/me", "/app", "/", "/login", "/redirect-chain", "/logout?dry=1".replace("/logout?dry=1", "/nonexistent")]) {
  try {
    const r = await fetch(path, {credentials: "include", redirect: "follow"});
    note(path, r.status, r.url, safe(() => [...r.headers]), safe(() => r.headers.get("set-cookie")), (await r.text()).slice(0, 4000));
  } catch (e) { note(path, "failed", String(e)); }
}
