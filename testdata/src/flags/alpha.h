// libalpha.a of the flags-regression program (testdata/flags/, docs/attribution.md): compiled
// with -fvisibility=hidden in both builds, so its weak definitions are never exported.
#ifndef FLAGS_ALPHA_H
#define FLAGS_ALPHA_H
namespace alpha {
template <class T> struct Cache {
  static T hits;
  T lookup(T key) {
    static T last = T(0);
    last = key + hits;
    return ++hits + last;
  }
};
template <class T> T Cache<T>::hits = T(1);
} // namespace alpha

int alpha_a();
int alpha_b();
#endif
