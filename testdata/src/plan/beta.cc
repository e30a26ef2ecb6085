#include "beta.h"
#include "core.h"

namespace beta {
int run() { return 3; }
} // namespace beta

// Used by the executable itself, so the instantiations are in libbeta.a's object.
int beta_use() {
  beta::Reg<int> r;
  r.add(2);
  core::Registry<int> c;
  c.add(2);
  return r.count() + c.size();
}
