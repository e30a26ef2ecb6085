#include "beta.h"

namespace beta {
BETA_DESCRIPTOR(Jump, 17)
BETA_DESCRIPTOR(Compare, 21)
} // namespace beta

int beta_b(beta::Data* d) {
  using namespace beta;
  static void (*const table[])(Data*) = {&Descriptor<Jump>::Initialize,
                                         &Descriptor<Compare>::Initialize};
  int sum = 0;
  for (auto init : table) {
    init(d);
    sum += d->registers[1];
  }
  return sum;
}
