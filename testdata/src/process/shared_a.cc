// Frameworks/libshared_a.dylib: the shared templates again, libdeep's Pool<int>
// and weak deep_tunable (found through this dylib's own LC_RPATH), and one
// instantiation nobody uses.
#include "process.h"

// Explicit instantiation definition: an exported weak definition that no
// image references (no weak bind anywhere).
template short proc::Clamp<short>(short, short, short);

proc::TemplateUses shared_a_uses = {&proc::Registry<int>::Instance, &proc::Counter<int>,
                                    &proc::Counter<long>};

int SharedARun(int x) {
  shared_a_uses.registry().Add(x);
  shared_a_uses.counter_int() += x;
  shared_a_uses.counter_long() += x;
  return proc::Pool<int>::Get().Take() + deep_tunable + DeepVersion();
}
