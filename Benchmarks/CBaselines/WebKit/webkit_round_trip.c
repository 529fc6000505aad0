#include "CWebKitBaselines.h"
#include <stdio.h>
#include <stdlib.h>

typedef struct {
    WebKitWebView *view;
    WebKitUserContentManager *manager;
    cb_webkit_done done;
    void *data;
    gboolean finished;
} bench_state;

static gboolean on_message(WebKitUserContentManager *manager, JSCValue *value, WebKitScriptMessageReply *reply, gpointer data) {
    (void)manager; (void)data;
    webkit_script_message_reply_return_value(reply, value);
    return TRUE;
}

static gboolean finish(gpointer data) {
    bench_state *state = data;
    const char *title = webkit_web_view_get_title(state->view);
    double value = title ? strtod(title, NULL) : 0;
    gtk_widget_destroy(GTK_WIDGET(state->view));
    g_object_unref(state->view);
    g_object_unref(state->manager);
    state->done(value, value > 0, state->data);
    free(state);
    return G_SOURCE_REMOVE;
}

static void on_title(GObject *object, GParamSpec *spec, gpointer data) {
    (void)object; (void)spec;
    bench_state *state = data;
    const char *title = webkit_web_view_get_title(state->view);
    if (state->finished || !title || title[0] == '\0' || title[0] == 'w') return;
    state->finished = TRUE;
    g_idle_add(finish, state);
}

void cb_webkit_round_trip_start(WebKitWebContext *context, int n, cb_webkit_done done, void *data) {
    bench_state *state = calloc(1, sizeof(bench_state));
    state->done = done;
    state->data = data;
    state->manager = webkit_user_content_manager_new();
    webkit_user_content_manager_register_script_message_handler_with_reply(state->manager, "bench", NULL);
    g_signal_connect(state->manager, "script-message-with-reply-received::bench", G_CALLBACK(on_message), state);
    state->view = WEBKIT_WEB_VIEW(g_object_ref_sink(g_object_new(WEBKIT_TYPE_WEB_VIEW, "web-context", context,
                                                                 "user-content-manager", state->manager, NULL)));
    g_signal_connect(state->view, "notify::title", G_CALLBACK(on_title), state);
    char html[1024];
    snprintf(html, sizeof html,
             "<title>wait</title><script>(async () => { const h = window.webkit.messageHandlers.bench;"
             " for (let i = 0; i < 20; i++) await h.postMessage(i);"
             " const t0 = performance.now(); for (let i = 0; i < %d; i++) await h.postMessage(i);"
             " document.title = String((performance.now() - t0) * 1e6 / %d); })();</script>", n, n);
    webkit_web_view_load_html(state->view, html, "http://127.0.0.1/");
}
