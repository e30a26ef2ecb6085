#include "alpha.h"

int alpha_a() {
  return alpha::Cache<int>().lookup(1) + static_cast<int>(alpha::Cache<long>().lookup(2));
}
