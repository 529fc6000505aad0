#ifndef SESSIONBRIDGE_CWEBKITGTK_SHIM_H
#define SESSIONBRIDGE_CWEBKITGTK_SHIM_H

/* WebKitGTK 4.1 (GTK 3, libsoup 3): the web view, its cookie manager and JSCValue. */
#include <gtk/gtk.h>
#include <webkit2/webkit2.h>
#include <libsoup/soup.h>

#endif
