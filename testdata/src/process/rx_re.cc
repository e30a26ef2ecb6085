// libre.dylib: re-exports libbase.dylib (-reexport_library) and has one weak
// definition of its own, Slot<short>, so that dyld searches its trie too.
#include "rx.h"

short& (*re_uses)() = &rx::Slot<short>;

int ReRun(int x) { return re_uses() + x; }
