// SessionBridge: the context-aware refresh script.
// Inside the app it passes control to native code through
// window.webkit.messageHandlers.<handler>; in a plain browser (no bridge) it POSTs the web
// refresh endpoint itself. Concurrent calls in one page share one promise.
(function (config) {
  "use strict";
  var g = typeof window !== "undefined" ? window : globalThis;
  if (g.sessionBridge && typeof g.sessionBridge.refresh === "function") return;
  var inFlight = null;

  function bridge() {
    try {
      var handlers = g.webkit && g.webkit.messageHandlers;
      return handlers && handlers[config.handlerName] ? handlers[config.handlerName] : null;
    } catch (e) {
      return null;
    }
  }

  function failure(code, message, retryable) {
    var error = new Error(message);
    error.name = "SessionError";
    error.code = code;
    error.retryable = !!retryable;
    return error;
  }

  function webRefresh() {
    return fetch(config.refreshPath, { method: "POST", credentials: "same-origin" }).then(function (response) {
      return response.json().then(
        function (body) { return body; },
        function () { return {}; }
      ).then(function (body) {
        if (response.ok && body && body.ok !== false) {
          return { ok: true, signedIn: true, expiresAt: typeof body.expiresAt === "number" ? body.expiresAt * 1000 : null };
        }
        var code = (body && body.error) || (response.status >= 500 ? "server_error" : "invalid_grant");
        throw failure(code, "the session could not be refreshed", response.status >= 500);
      });
    }, function () {
      throw failure("network", "the refresh endpoint could not be reached", true);
    });
  }

  function refresh() {
    if (inFlight) return inFlight;
    var handler = bridge();
    var started = handler ? handler.postMessage({ action: "refresh" }) : webRefresh();
    inFlight = started.then(
      function (value) { inFlight = null; return value; },
      function (error) { inFlight = null; throw error; }
    );
    return inFlight;
  }

  function status() {
    var handler = bridge();
    if (handler) return handler.postMessage({ action: "status" });
    return Promise.resolve({ ok: true, signedIn: null, expiresAt: null });
  }

  Object.defineProperty(g, "sessionBridge", {
    value: Object.freeze({ refresh: refresh, status: status, get native() { return bridge() !== null; } }),
    writable: false, configurable: false, enumerable: false
  });
})(/*CONFIG*/{ "handlerName": "session", "refreshPath": "/session/refresh" });
