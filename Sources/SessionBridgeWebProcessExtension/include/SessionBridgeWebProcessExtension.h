#ifndef SESSIONBRIDGE_WEB_PROCESS_EXTENSION_H
#define SESSIONBRIDGE_WEB_PROCESS_EXTENSION_H

/*
 * The web process extension of SessionBridge's WebKit engine (libSessionBridgeWebProcessExtension.so).
 *
 * WebKitGTK tells the embedder nothing of a page's console. Its own lines (a Content Security
 * Policy's refusals, a blocked port, a failed CORS check, an uncaught exception, an unhandled
 * rejection) are known only in the web process, where this extension hears them
 * (`WebKitWebPage::console-message-sent`) and sends each to its view as a user message named
 * SB_CONSOLE_MESSAGE_NAME, with parameters of type SB_CONSOLE_MESSAGE_TYPE:
 * (source, level, text, source URL, line), the first two WebKitConsoleMessageSource and
 * WebKitConsoleMessageLevel values. Lines of the console API (`console.log`) are not sent:
 * WebKit keeps only their first argument.
 */

#define SB_CONSOLE_MESSAGE_NAME "sessionbridge-console"
#define SB_CONSOLE_MESSAGE_TYPE "(uussu)"
/* The longest text sent, in bytes: a page cannot make one message of any size. */
#define SB_CONSOLE_MESSAGE_MAX_TEXT 65536

#endif
