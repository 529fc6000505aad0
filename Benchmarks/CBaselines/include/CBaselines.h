#ifndef SESSIONBRIDGE_CBASELINES_H
#define SESSIONBRIDGE_CBASELINES_H
/// Baselines measured in the same run as SessionBridge: the raw JavaScriptCore C API and
/// libsoup's cookie parser (filled in by the benchmark work).
double cbaselines_placeholder(void);
#endif
