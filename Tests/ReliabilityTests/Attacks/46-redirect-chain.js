// Follows redirect chains with fetch and reads every hop it can see.
for (const path of ["/redirect-chain", "/redirect-loop"]) {
  for (const redirect of ["follow", "manual", "error"]) {
    try { const r = await fetch(path, {credentials: "include", redirect}); note(path, redirect, r.status, r.url, safe(() => [...r.headers]), (await r.text()).slice(0, 2000)); }
    catch (e) { note(path, redirect, "failed", String(e)); }
  }
}
note("cookie", document.cookie);
