#include "beta.h"

namespace beta {
BETA_DESCRIPTOR(Load, 1)
BETA_DESCRIPTOR(Store, 5)
BETA_DESCRIPTOR(Call, 9)
BETA_DESCRIPTOR(Return, 13)
} // namespace beta

int beta_a(beta::Data* d) {
  using namespace beta;
  static void (*const table[])(Data*) = {
      &Descriptor<Load>::Initialize, &Descriptor<Store>::Initialize,
      &Descriptor<Call>::Initialize, &Descriptor<Return>::Initialize};
  int sum = 0;
  for (auto init : table) {
    init(d);
    sum += d->registers[0];
  }
  return sum;
}
