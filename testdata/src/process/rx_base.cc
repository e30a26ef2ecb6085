// libbase.dylib: Slot<int> and Slot<long>, re-exported whole by libre.dylib
// (LC_REEXPORT_DYLIB): nothing of it is in libre's export trie.
#include "rx.h"

rx::IntLong base_uses = {&rx::Slot<int>, &rx::Slot<long>};

int BaseRun(int x) { return base_uses.slot_int() + static_cast<int>(base_uses.slot_long()) + x; }
