#include "WebKitGTKShim.h"

#include <string.h>

WebKitWebView *sb_web_view_new(WebKitWebContext *context, WebKitUserContentManager *manager) {
    GtkWidget *view = GTK_WIDGET(g_object_new(WEBKIT_TYPE_WEB_VIEW, "web-context", context,
                                              "user-content-manager", manager, NULL));
    WebKitSettings *settings = webkit_web_view_get_settings(WEBKIT_WEB_VIEW(view));
    WebKitFeatureList *features = webkit_settings_get_all_features();
    for (gsize i = 0; i < webkit_feature_list_get_length(features); i++) {
        WebKitFeature *feature = webkit_feature_list_get(features, i);
        if (strcmp(webkit_feature_get_identifier(feature), "HiddenPageDOMTimerThrottling") == 0)
            webkit_settings_set_feature_enabled(settings, feature, FALSE);
    }
    webkit_feature_list_unref(features);
    return WEBKIT_WEB_VIEW(g_object_ref_sink(view));
}

WebKitWebsiteDataManager *sb_website_data_manager_new(const char *data_directory, const char *cache_directory) {
    return webkit_website_data_manager_new("base-data-directory", data_directory,
                                           "base-cache-directory", cache_directory, NULL);
}

WebKitWebContext *sb_web_context_new(WebKitWebsiteDataManager *manager, guint memory_limit_mb) {
    if (memory_limit_mb == 0)
        return webkit_web_context_new_with_website_data_manager(manager);
    WebKitMemoryPressureSettings *settings = webkit_memory_pressure_settings_new();
    webkit_memory_pressure_settings_set_memory_limit(settings, memory_limit_mb);
    webkit_memory_pressure_settings_set_kill_threshold(settings, 1.0);
    webkit_memory_pressure_settings_set_poll_interval(settings, 1.0);
    WebKitWebContext *context = WEBKIT_WEB_CONTEXT(g_object_new(WEBKIT_TYPE_WEB_CONTEXT, "website-data-manager", manager,
                                                                "memory-pressure-settings", settings, NULL));
    webkit_memory_pressure_settings_free(settings);
    return context;
}

#define SB_CONNECT(instance, signal, handler, data, destroy) \
    g_signal_connect_data((instance), (signal), G_CALLBACK(handler), (data), (destroy), (GConnectFlags)0)

gulong sb_connect_decide_policy(WebKitWebView *view, SBDecidePolicyHandler handler, gpointer data, GClosureNotify destroy) {
    return SB_CONNECT(view, "decide-policy", handler, data, destroy);
}

gulong sb_connect_load_changed(WebKitWebView *view, SBLoadChangedHandler handler, gpointer data, GClosureNotify destroy) {
    return SB_CONNECT(view, "load-changed", handler, data, destroy);
}

gulong sb_connect_load_failed(WebKitWebView *view, SBLoadFailedHandler handler, gpointer data, GClosureNotify destroy) {
    return SB_CONNECT(view, "load-failed", handler, data, destroy);
}

gulong sb_connect_notify(gpointer object, const char *property, SBNotifyHandler handler, gpointer data, GClosureNotify destroy) {
    gchar *signal = g_strconcat("notify::", property, NULL);
    gulong id = SB_CONNECT(object, signal, handler, data, destroy);
    g_free(signal);
    return id;
}

gulong sb_connect_web_process_terminated(WebKitWebView *view, SBWebProcessTerminatedHandler handler, gpointer data,
                                         GClosureNotify destroy) {
    return SB_CONNECT(view, "web-process-terminated", handler, data, destroy);
}

gulong sb_connect_script_dialog(WebKitWebView *view, SBScriptDialogHandler handler, gpointer data, GClosureNotify destroy) {
    return SB_CONNECT(view, "script-dialog", handler, data, destroy);
}

/* An HTTP authentication challenge goes on without a credential, so that the answer (a 401) reaches
 * the page as it does in a WKWebView whose delegate does not handle challenges; WebKitGTK's own
 * handler shows a dialog, which a view no one sees never answers (the load then never ended). */
static gboolean sb_continue_without_credential(WebKitWebView *view, WebKitAuthenticationRequest *request, gpointer data) {
    (void)view;
    (void)data;
    webkit_authentication_request_authenticate(request, NULL);
    return TRUE;
}

gulong sb_connect_authenticate_without_credential(WebKitWebView *view) {
    return g_signal_connect(view, "authenticate", G_CALLBACK(sb_continue_without_credential), NULL);
}

gulong sb_connect_resource_load_started(WebKitWebView *view, SBResourceLoadStartedHandler handler, gpointer data,
                                        GClosureNotify destroy) {
    return SB_CONNECT(view, "resource-load-started", handler, data, destroy);
}

gulong sb_connect_resource_finished(WebKitWebResource *resource, SBResourceFinishedHandler handler, gpointer data,
                                    GClosureNotify destroy) {
    return SB_CONNECT(resource, "finished", handler, data, destroy);
}

gulong sb_connect_script_message_with_reply(WebKitUserContentManager *manager, const char *name,
                                            SBScriptMessageWithReplyHandler handler, gpointer data, GClosureNotify destroy) {
    gchar *signal = g_strconcat("script-message-with-reply-received::", name, NULL);
    gulong id = SB_CONNECT(manager, signal, handler, data, destroy);
    g_free(signal);
    return id;
}

gulong sb_connect_script_message(WebKitUserContentManager *manager, const char *name, SBScriptMessageHandler handler,
                                 gpointer data, GClosureNotify destroy) {
    gchar *signal = g_strconcat("script-message-received::", name, NULL);
    gulong id = SB_CONNECT(manager, signal, handler, data, destroy);
    g_free(signal);
    return id;
}

gulong sb_connect_cookies_changed(WebKitCookieManager *manager, SBCookiesChangedHandler handler, gpointer data,
                                  GClosureNotify destroy) {
    return SB_CONNECT(manager, "changed", handler, data, destroy);
}

gulong sb_connect_user_message_received(WebKitWebView *view, SBUserMessageHandler handler, gpointer data, GClosureNotify destroy) {
    return SB_CONNECT(view, "user-message-received", handler, data, destroy);
}

/* The extension's SB_CONSOLE_MESSAGE_NAME and SB_CONSOLE_MESSAGE_TYPE. */
#define SB_CONSOLE_MESSAGE_NAME "sessionbridge-console"
#define SB_CONSOLE_MESSAGE_TYPE "(uussu)"

gboolean sb_console_message_read(WebKitUserMessage *message, guint32 *source, guint32 *level, const char **text,
                                 const char **source_url, guint32 *line) {
    const char *name = webkit_user_message_get_name(message);
    GVariant *parameters = webkit_user_message_get_parameters(message);
    if (!name || strcmp(name, SB_CONSOLE_MESSAGE_NAME) != 0 || !parameters
        || !g_variant_is_of_type(parameters, G_VARIANT_TYPE(SB_CONSOLE_MESSAGE_TYPE)))
        return FALSE;
    g_variant_get(parameters, "(uu&s&su)", source, level, text, source_url, line);
    return TRUE;
}
