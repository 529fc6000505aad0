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
    try {
      var url = new URL(typeof input === "string" ? input : (input && input.url) || String(input), g.location.href);
      return url.origin === g.location.origin;
    } catch (e) {
      return typeof input === "string" && input.charAt(0) === "/" && input.charAt(1) !== "/";
    }
  }

  function fetchWithRefresh(input, init) {
    return original.call(g, input, init).then(function (response) {
      if (response.status !== 401 || !sameOrigin(input)) return response;
      return refreshSession().then(
        function () { return original.call(g, input, init); },
        function () { return response; }
      );
    });
  }
  Object.defineProperty(fetchWithRefresh, "__sessionBridgeRetry", { value: true });
  g.fetch = fetchWithRefresh;
})(/*CONFIG*/{ "handlerName": "session" });
