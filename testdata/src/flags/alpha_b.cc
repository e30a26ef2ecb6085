#include "alpha.h"

int alpha_b() { return static_cast<int>(alpha::Cache<short>().lookup(3)); }
