// Shared by the images of the re-export fixture testdata/process/Reexport
// (main, libre, libbase, libdelayinit). Default visibility: each image that
// instantiates Slot<T> exports Slot<T>() and its local static `value` as weak
// definitions and weak-binds its own uses of them.
#ifndef WEAKSCAN_RX_H
#define WEAKSCAN_RX_H

#include "../common.h"

namespace rx {

// A function template with a constant-initialized function-local static: the
// function and `value` are weak definitions.
template <typename T>
T& Slot() {
  static T value = T(2);
  return value;
}

// The uses of Slot, as writable pointers with external linkage: the addresses
// keep the instantiations exported and give each a weak bind.
struct IntLong {
  int& (*slot_int)();
  long& (*slot_long)();
};

}  // namespace rx

// Entry points (strong): libbase's is reached by main through libre, which
// re-exports libbase (-reexport_library).
int BaseRun(int x);
int ReRun(int x);
int DelayRun(int x);

#endif  // WEAKSCAN_RX_H
