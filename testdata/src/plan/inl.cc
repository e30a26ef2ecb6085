#include "inl.h"

int inl_seed() { return 4; }
// An explicit instantiation definition: the flag keeps even its inline members.
template struct inl::Box<long>;
int inl_use() {
  return inl::hidden_count() + inl::Box<int>().out() + inl::Box<int>().in() +
         static_cast<int>(inl::Box<long>().in());
}
