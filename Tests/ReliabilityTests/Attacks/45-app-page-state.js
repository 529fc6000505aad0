// @document app
// Runs inside the real /app page: reads its state, calls its functions and walks what they return.
note("appState", window.appState);
try { note("refreshSession", await window.refreshSession()); } catch (e) { note(String(e), e && e.code); }
try { note("loadMe", await window.loadMe()); } catch (e) { note(String(e)); }
walk(window.appState, 5);
note("title", document.title, "cookie", document.cookie);
