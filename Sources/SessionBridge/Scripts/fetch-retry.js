// SessionBridge: retry-after-refresh for fetch. A same-origin request answered 401 makes the
// page refresh the session once (through sessionBridge.refresh, which shares one promise per
// page, or the bridge directly) and sends the request again. A second 401 is returned as is.
(function (config) {
  "use strict";
  var g = typeof window !== "undefined" ? window : globalThis;
  if (typeof g.fetch !== "function" || g.fetch.__sessionBridgeRetry) return;
  var original = g.fetch;

  function refreshSession() {
    if (g.sessionBridge && typeof g.sessionBridge.refresh === "function") return g.sessionBridge.refresh();
    var handlers = g.webkit && g.webkit.messageHandlers;
    var handler = handlers && handlers[config.handlerName];
    if (!handler) return Promise.reject(new Error("no session bridge"));
    return handler.postMessage({ action: "refresh" });
  }

  function sameOrigin(input) {
    var href = typeof input === "string" ? input : (input && input.url) || String(input);
    var origin = g.location.origin;
    try {
      return new URL(href, g.location.href).origin === origin;
    } catch (e) {
      // Without URL: a path on this origin, or an absolute URL on it (a Request's url is).
      return (href.charAt(0) === "/" && href.charAt(1) !== "/") || href === origin || href.indexOf(origin + "/") === 0;
    }
  }

  function fetchWithRefresh(input, init) {
    // A Request's body is read by the first send: the retry sends a copy made before it.
    var again = typeof g.Request === "function" && input instanceof g.Request && !input.bodyUsed ? input.clone() : input;
    return original.call(g, input, init).then(function (response) {
      if (response.status !== 401 || !sameOrigin(input)) return response;
      return refreshSession().then(
        function () { return original.call(g, again, init); },
        function () { return response; }
      );
    });
  }
  Object.defineProperty(fetchWithRefresh, "__sessionBridgeRetry", { value: true });
  g.fetch = fetchWithRefresh;
})(/*CONFIG*/{ "handlerName": "session" });
