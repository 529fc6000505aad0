/// HTML of the server's pages.
enum Pages {
    static func escape(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.append(character)
            }
        }
        return result
    }

    static func index() -> String {
        """
        <!doctype html>
        <html><head><meta charset="utf-8"><title>Reference server</title></head>
        <body><h1>Reference server</h1><p><a href="/app">App</a> · <a href="/login">Sign in</a></p></body></html>
        """
    }

    static func login(next: String, error: String?) -> String {
        let message = error.map { "<p id=\"error\" role=\"alert\">\(escape($0))</p>" } ?? ""
        return """
            <!doctype html>
            <html><head><meta charset="utf-8"><title>Sign in</title></head>
            <body>
            <h1>Sign in</h1>
            \(message)
            <form id="login" method="post" action="/login">
            <input type="hidden" name="next" value="\(escape(next))">
            <label>Username <input name="username" autocomplete="username"></label>
            <label>Password <input name="password" type="password" autocomplete="current-password"></label>
            <button type="submit">Sign in</button>
            </form>
            </body></html>
            """
    }

    /// The protected page without scripts: what a navigation to it costs is the navigation's own.
    static func plainApp(path: String, user: String) -> String {
        """
        <!doctype html>
        <html><head><meta charset="utf-8"><title>App</title></head>
        <body><h1 id="title">App</h1><p id="path">\(escape(path))</p><p id="user">\(escape(user))</p></body></html>
        """
    }

    /// A protected page: asks native code to refresh through the bridge, and loads `/api/me`.
    static func app(path: String, user: String, expiresAt: Int) -> String {
        """
        <!doctype html>
        <html><head><meta charset="utf-8"><title>App</title></head>
        <body>
        <h1 id="title">App</h1>
        <p id="path">\(escape(path))</p>
        <p id="user">\(escape(user))</p>
        <p id="status">loading</p>
        <script>
        window.appState = { path: \(jsString(path)), user: \(jsString(user)), expiresAt: \(expiresAt), me: null, refreshed: null };
        async function loadMe() {
          const response = await fetch('/api/me', { credentials: 'same-origin' });
          if (response.status === 401) { return null; }
          const me = await response.json();
          window.appState.me = me;
          return me;
        }
        async function refreshSession() {
          const handlers = window.webkit && window.webkit.messageHandlers;
          if (handlers && handlers.session) {
            const reply = await window.webkit.messageHandlers.session.postMessage({action: "refresh"});
            window.appState.refreshed = reply;
            return reply;
          }
          const response = await fetch('/session/refresh', { method: 'POST', credentials: 'same-origin' });
          const reply = await response.json();
          window.appState.refreshed = reply;
          return reply;
        }
        window.refreshSession = refreshSession;
        window.loadMe = loadMe;
        </script>
        <script>
        loadMe().then(function (me) {
          if (me) { document.title = 'App: ' + me.sub; window.appState.status = 'ready'; return; }
          return refreshSession().then(function () { return loadMe(); }).then(function (again) {
            window.appState.status = again ? 'ready' : 'signed-out';
          });
        }).catch(function (error) { window.appState.status = 'error: ' + error; });
        </script>
        </body></html>
        """
    }

    static func redirectChainEnd() -> String {
        """
        <!doctype html>
        <html><head><meta charset="utf-8"><title>Redirect chain</title></head>
        <body><p id="done">end of the redirect chain</p><script>window.chainDone = true;</script></body></html>
        """
    }

    /// A JavaScript string literal.
    static func jsString(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "<": result += "\\u003C"
            case ">": result += "\\u003E"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\u{2028}": result += "\\u2028"
            case "\u{2029}": result += "\\u2029"
            default:
                if scalar.value < 0x20 {
                    result +=
                        "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
                        + String(scalar.value, radix: 16)
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result + "\""
    }
}
