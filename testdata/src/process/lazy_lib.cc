// testdata/process/Lazy/liblazy.dylib: what Lazy/main lazy-loads. Default visibility:
// rx::Slot<long> and its local static are weak definitions it exports and weak-binds itself,
// so that, once loaded, dyld searches it and it makes weak-def lookups of its own.
#include "rx.h"

long& (*lazy_uses)() = &rx::Slot<long>;

int LazyRun(int x) { return static_cast<int>(lazy_uses()) + x; }
