#include "alpha.h"
#include "core.h"

namespace alpha {
int seed() { return 7; }

template <class T> T tmpl(T v) {
  static T base = T(seed());
  return base + v;
}
template long tmpl<long>(long);

template <class T> T Box<T>::sdm = T(seed());
template <class T> T Box<T>::out() { return sdm + 1; }
template struct Box<short>;

int run() {
  Box<int> b;
  Box<short> s;
  core::Registry<int> r;
  r.add(1);
  return r.size() + counter() + with_lambda() + twice(3) + tmpl(1) + int(tmpl(2L)) + b.get() +
         b.out() + s.get() + s.out();
}
} // namespace alpha
