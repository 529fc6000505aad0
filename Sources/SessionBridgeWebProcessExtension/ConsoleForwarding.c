#include "SessionBridgeWebProcessExtension.h"

#include <string.h>
#include <webkit2/webkit-web-extension.h>

/* The console message API is deprecated in the 4.1 web extension API since 2.40 and kept,
 * undeprecated, in WebKitGTK 6.0's: it is the only way to hear the web process's console. */
G_GNUC_BEGIN_IGNORE_DEPRECATIONS

/* `text` cut to at most `max` bytes, at a character boundary (the text is UTF-8). */
static char *shortened(const char *text, gsize max) {
    gsize length = strlen(text);
    if (length <= max) return g_strdup(text);
    const char *end = g_utf8_find_prev_char(text, text + max + 1);
    return g_strndup(text, end ? (gsize)(end - text) : 0);
}

static void console_message_sent(WebKitWebPage *page, WebKitConsoleMessage *message, gpointer data) {
    (void)data;
    WebKitConsoleMessageSource source = webkit_console_message_get_source(message);
    if (source == WEBKIT_CONSOLE_MESSAGE_SOURCE_CONSOLE_API) return;
    const char *text = webkit_console_message_get_text(message);
    const char *source_id = webkit_console_message_get_source_id(message);
    char *sent = shortened(text ? text : "", SB_CONSOLE_MESSAGE_MAX_TEXT);
    GVariant *parameters = g_variant_new(SB_CONSOLE_MESSAGE_TYPE, (guint32)source,
                                         (guint32)webkit_console_message_get_level(message), sent,
                                         source_id ? source_id : "", (guint32)webkit_console_message_get_line(message));
    g_free(sent);
    webkit_web_page_send_message_to_view(page, webkit_user_message_new(SB_CONSOLE_MESSAGE_NAME, parameters), NULL, NULL, NULL);
}

G_GNUC_END_IGNORE_DEPRECATIONS

static void page_created(WebKitWebExtension *extension, WebKitWebPage *page, gpointer data) {
    (void)extension;
    (void)data;
    g_signal_connect(page, "console-message-sent", G_CALLBACK(console_message_sent), NULL);
}

/* Called by WebKit when it loads the extension into a web process. */
G_MODULE_EXPORT void webkit_web_extension_initialize(WebKitWebExtension *extension) {
    g_signal_connect(extension, "page-created", G_CALLBACK(page_created), NULL);
}
