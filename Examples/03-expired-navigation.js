// The access cookie has expired. Navigating to a protected page is held by the navigation
// policy until native code has refreshed and written the new cookie; the request then carries it.
console.log("has __Host-session? (HttpOnly, so the page cannot tell):", document.cookie.includes("__Host-session"));
console.log("session_expires present:", document.cookie.includes("session_expires"));
location.href = "/app";
