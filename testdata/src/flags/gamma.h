// libgamma.a of the flags-regression program (testdata/flags/): compiled with
// -fvisibility=hidden -fvisibility-inlines-hidden in both builds. Its API template is marked
// visibility("default"), so both builds export weak definitions (and have MH_WEAK_DEFINES):
// what the new build adds is libbeta.a's alone.
#ifndef FLAGS_GAMMA_H
#define FLAGS_GAMMA_H
namespace gam {
template <class T> struct Pool {
  static T store[8];
  static int next;
  T* take() { return &store[next++ % 8]; }
};
template <class T> T Pool<T>::store[8];
template <class T> int Pool<T>::next = 0;

template <class T> struct __attribute__((visibility("default"))) Api {
  static int version();
};
template <class T> int Api<T>::version() {
  static int v = int(sizeof(T));
  return ++v;
}
} // namespace gam

int gamma_take();
#endif
