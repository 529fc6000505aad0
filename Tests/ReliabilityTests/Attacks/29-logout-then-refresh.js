// @ends-session
// Logs out through the bridge and then tries every way back in: refresh, status, fetch, cookies.
note("logout", await post({action: "logout"}));
note("cookie after logout", document.cookie);
note("refresh after logout", await post({action: "refresh"}));
note("status after logout", await post({action: "status"}));
note("api/me after logout", await fetchText("/api/me"));
try { await window.sessionBridge.refresh(); } catch (e) { note(String(e), e.code); }
