#ifndef SESSIONBRIDGE_WEBKITGTK_SHIM_H
#define SESSIONBRIDGE_WEBKITGTK_SHIM_H

/*
 * What Swift cannot call directly: variadic constructors (g_object_new and
 * webkit_website_data_manager_new take property lists) and signal connection (g_signal_connect
 * is a macro over an untyped callback). Each connector takes a typed handler.
 */

#include <webkit2/webkit2.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A web view in `context` using `manager`, owned by the caller (its floating reference sunk).
/// Its timers run as a shown view's do: the view is never put on screen, and WebKit throttles a
/// hidden page's nested timers to one a second (`HiddenPageDOMTimerThrottling`), where an app's
/// view on screen, and the headless engine, clamp them to 4 ms.
WebKitWebView *sb_web_view_new(WebKitWebContext *context, WebKitUserContentManager *manager);

/// A persistent data manager keeping its data in `data_directory` and its cache in `cache_directory`.
WebKitWebsiteDataManager *sb_website_data_manager_new(const char *data_directory, const char *cache_directory);
/// A web context on `manager`; with `memory_limit_mb` above 0, its web processes are ended once
/// they hold more than that many megabytes after WebKit's own cleanup (checked every second).
WebKitWebContext *sb_web_context_new(WebKitWebsiteDataManager *manager, guint memory_limit_mb);

typedef gboolean (*SBDecidePolicyHandler)(WebKitWebView *view, WebKitPolicyDecision *decision,
                                          WebKitPolicyDecisionType type, gpointer data);
typedef void (*SBLoadChangedHandler)(WebKitWebView *view, WebKitLoadEvent event, gpointer data);
typedef gboolean (*SBLoadFailedHandler)(WebKitWebView *view, WebKitLoadEvent event, const char *uri,
                                        GError *error, gpointer data);
typedef void (*SBNotifyHandler)(GObject *object, GParamSpec *spec, gpointer data);
typedef void (*SBWebProcessTerminatedHandler)(WebKitWebView *view, WebKitWebProcessTerminationReason reason,
                                              gpointer data);
typedef gboolean (*SBScriptMessageWithReplyHandler)(WebKitUserContentManager *manager, JSCValue *value,
                                                    WebKitScriptMessageReply *reply, gpointer data);
/* In the 4.1 API a message without reply arrives as a WebKitJavascriptResult. */
typedef void (*SBScriptMessageHandler)(WebKitUserContentManager *manager, WebKitJavascriptResult *result, gpointer data);
typedef void (*SBCookiesChangedHandler)(WebKitCookieManager *manager, gpointer data);
typedef void (*SBResourceLoadStartedHandler)(WebKitWebView *view, WebKitWebResource *resource, WebKitURIRequest *request,
                                             gpointer data);
typedef void (*SBResourceFinishedHandler)(WebKitWebResource *resource, gpointer data);
typedef gboolean (*SBScriptDialogHandler)(WebKitWebView *view, WebKitScriptDialog *dialog, gpointer data);

gulong sb_connect_decide_policy(WebKitWebView *view, SBDecidePolicyHandler handler, gpointer data, GClosureNotify destroy);
gulong sb_connect_load_changed(WebKitWebView *view, SBLoadChangedHandler handler, gpointer data, GClosureNotify destroy);
gulong sb_connect_load_failed(WebKitWebView *view, SBLoadFailedHandler handler, gpointer data, GClosureNotify destroy);
gulong sb_connect_notify(gpointer object, const char *property, SBNotifyHandler handler, gpointer data, GClosureNotify destroy);
gulong sb_connect_web_process_terminated(WebKitWebView *view, SBWebProcessTerminatedHandler handler, gpointer data,
                                         GClosureNotify destroy);
gulong sb_connect_script_dialog(WebKitWebView *view, SBScriptDialogHandler handler, gpointer data, GClosureNotify destroy);
/* Answers every HTTP authentication challenge of the view without a credential (its 401 reaches the page). */
gulong sb_connect_authenticate_without_credential(WebKitWebView *view);
gulong sb_connect_resource_load_started(WebKitWebView *view, SBResourceLoadStartedHandler handler, gpointer data,
                                        GClosureNotify destroy);
/// Connects a resource's `finished` (emitted after a load succeeded or failed).
gulong sb_connect_resource_finished(WebKitWebResource *resource, SBResourceFinishedHandler handler, gpointer data,
                                    GClosureNotify destroy);
/// Connects `script-message-with-reply-received::<name>`.
gulong sb_connect_script_message_with_reply(WebKitUserContentManager *manager, const char *name,
                                            SBScriptMessageWithReplyHandler handler, gpointer data, GClosureNotify destroy);
/// Connects `script-message-received::<name>`.
gulong sb_connect_script_message(WebKitUserContentManager *manager, const char *name, SBScriptMessageHandler handler,
                                 gpointer data, GClosureNotify destroy);
/// Connects `user-message-received`.
typedef gboolean (*SBUserMessageHandler)(WebKitWebView *view, WebKitUserMessage *message, gpointer data);
gulong sb_connect_user_message_received(WebKitWebView *view, SBUserMessageHandler handler, gpointer data, GClosureNotify destroy);
/// Reads a console line the web process extension sent (libSessionBridgeWebProcessExtension;
/// its header gives the message's name and type, which these must match); `FALSE` for any
/// other message. The strings are the message's own: valid while it is.
gboolean sb_console_message_read(WebKitUserMessage *message, guint32 *source, guint32 *level, const char **text,
                                 const char **source_url, guint32 *line);
gulong sb_connect_cookies_changed(WebKitCookieManager *manager, SBCookiesChangedHandler handler, gpointer data,
                                  GClosureNotify destroy);

#ifdef __cplusplus
}
#endif

#endif
