// libdelayinit.dylib: Slot<long> again. Linked by main with LC_LOAD_DYLIB;
// tests/reexport.rs rewrites that command as a dylib_use_command with
// DYLIB_USE_DELAYED_INIT (ld64.lld cannot write one).
#include "rx.h"

long& (*delay_uses)() = &rx::Slot<long>;

int DelayRun(int x) { return static_cast<int>(delay_uses()) + x; }
