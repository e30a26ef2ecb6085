#include "nsl.h"

int nsl_seed() { return 5; }
int nsl_use() { return nsl::count() + nsl::with_lambda(); }
