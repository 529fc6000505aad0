/* libsoup's Set-Cookie parser, the baseline for SessionBridge's own parser. */

#include "CBaselines.h"
#include "jsc_queue.h"

#include <stddef.h>

/* Declared here rather than through pkg-config (whose flags SwiftPM refuses to pass on).
 * From libsoup-3.0's soup-cookie.h: */
typedef struct SoupCookie SoupCookie;
/* From glib's guri.h (GUriFlags is an int-sized enum; G_URI_FLAGS_NONE is 0): */
typedef struct _GUri GUri;
typedef struct _GError GError;
extern GUri *g_uri_parse(const char *uri_string, int flags, GError **error);
extern void g_uri_unref(GUri *uri);
/* soup-cookie.h: */
extern SoupCookie *soup_cookie_parse(const char *header, GUri *origin);
extern void soup_cookie_free(SoupCookie *cookie);

int64_t cb_soup_parse(const char *const *headers, int count, int rounds, const char *url, int *parsed) {
    GUri *origin = g_uri_parse(url, 0, NULL);
    *parsed = 0;
    if (!origin) return 0;
    int64_t start = cb_now_ns();
    for (int round = 0; round < rounds; round++) {
        for (int i = 0; i < count; i++) {
            SoupCookie *cookie = soup_cookie_parse(headers[i], origin);
            if (cookie) {
                if (round == 0) (*parsed)++;
                soup_cookie_free(cookie);
            }
        }
    }
    int64_t elapsed = cb_now_ns() - start;
    g_uri_unref(origin);
    return elapsed;
}
