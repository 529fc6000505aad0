// SessionBridge: document-start cookie injection, for WKWebView setups that still need it.
// Sets each listed (non-HttpOnly) cookie through document.cookie unless the page already has a
// cookie of that name. The list is JSON generated natively; values are never spliced into code.
(function (cookies) {
  "use strict";
  var present = {};
  String(document.cookie || "").split(";").forEach(function (pair) {
    var trimmed = pair.trim();
    if (!trimmed) return;
    var eq = trimmed.indexOf("=");
    present[eq < 0 ? "" : trimmed.slice(0, eq)] = true;
  });
  for (var i = 0; i < cookies.length; i++) {
    var cookie = cookies[i];
    if (Object.prototype.hasOwnProperty.call(present, cookie.name)) continue;
    document.cookie = cookie.line;
  }
})(/*COOKIES*/[]);
