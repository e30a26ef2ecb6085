// Frameworks/libshared_b.dylib: the shared templates again, except that
// Counter<long> is an explicit specialization here: a strong definition with
// the mangled name of the others' weak instantiation (its local static is
// internal). Links libdeep without an LC_RPATH of its own.
#include "process.h"

namespace proc {
template <>
long& Counter<long>() {
  static long value = 100;
  return value;
}
}  // namespace proc

proc::TemplateUses shared_b_uses = {&proc::Registry<int>::Instance, &proc::Counter<int>,
                                    &proc::Counter<long>};

int SharedBRun(int x) {
  shared_b_uses.registry().Add(x);
  shared_b_uses.counter_int() += x;
  return static_cast<int>(shared_b_uses.counter_long()) + DeepVersion();
}
