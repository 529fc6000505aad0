// Opens windows and navigates frames at the token endpoint and at javascript: URLs.
for (const url of ["/oauth/token", "/debug/stats", "javascript:alert(document.cookie)", "data:text/html,hello"]) {
  try { note("open", url, window.open(url, "_blank")); } catch (e) { note("open failed", url, String(e)); }
}
note("location", safe(() => [location.href, location.origin, location.protocol]));
