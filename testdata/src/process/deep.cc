// Frameworks/deps/libdeep.dylib: weak definitions that only this image has,
// bound by libshared_a (and by libdeep itself).
#include "process.h"

__attribute__((weak)) int deep_tunable = 5;

// Explicit instantiation definition: Pool<int>::Get, Pool<int>::Take and the
// local static `pool` become weak definitions of libdeep.
template class proc::Pool<int>;

int DeepVersion() { return proc::Pool<int>::Get().Take() + deep_tunable; }
