#include "beta.h"

namespace beta {
BETA_DESCRIPTOR(Throw, 25)
} // namespace beta

int beta_c(beta::Data* d) {
  beta::Descriptor<beta::Throw>::Initialize(d);
  return d->registers[2];
}
