#include "CBaselines.h"
double cbaselines_placeholder(void) { return 0; }
