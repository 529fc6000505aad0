// POSTs the token endpoint from the page with its cookies, with every grant it can think of.
const forms = [
  "grant_type=refresh_token",
  "grant_type=refresh_token&refresh_token=",
  "grant_type=client_credentials",
  "grant_type=authorization_code&code=x",
  "grant_type=password&username=demo&password=wrong",
  "grant_type=urn:ietf:params:oauth:grant-type:token-exchange&subject_token=" + encodeURIComponent(document.cookie),
];
for (const body of forms) {
  for (const credentials of ["include", "same-origin", "omit"]) {
    try {
      const r = await fetch("/oauth/token", {method: "POST", credentials, headers: {"Content-Type": "application/x-www-form-urlencoded"}, body});
      note(body, credentials, r.status, await r.text(), safe(() => [...r.headers]));
    } catch (e) { note("fetch failed", String(e)); }
  }
}
try { const r = await fetch("/oauth/token", {method: "POST", body: JSON.stringify({grant_type: "refresh_token"}), headers: {"Content-Type": "application/json"}}); note("json", r.status, await r.text()); } catch (e) { note(String(e)); }
