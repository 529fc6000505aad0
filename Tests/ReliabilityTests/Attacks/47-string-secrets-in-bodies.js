// Sends bodies with secret-looking strings, then reads back what the handler echoes.
for (const body of [{action: "status", refresh_token: "sbrt_probe"}, {action: "refresh", token: "sbrt_"}, {action: "sbrt_x"}, "sbrt_alone"]) {
  try { note("reply", await window.webkit.messageHandlers.session.postMessage(body)); }
  catch (e) { note("error", String(e), e && e.message, e && e.code); }
}
