// Reexport/main: Slot<int> again; BaseRun is bound through libre.dylib, which
// re-exports libbase.dylib.
#include "rx.h"

int& (*main_uses)() = &rx::Slot<int>;

int main() { return main_uses() + BaseRun(1) + ReRun(2) + DelayRun(3); }
