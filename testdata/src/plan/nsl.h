// libnsl.a, compiled with -fno-visibility-inlines-hidden-static-local-var: with
// -fvisibility-inlines-hidden added, an inline function is hidden but its local statics keep
// the global visibility (clang getLVForLocalDecl); a static of a function hidden because a
// lambda is among its template arguments is hidden all the same.
#ifndef PLAN_NSL_H
#define PLAN_NSL_H
int nsl_seed();

namespace nsl {
inline int count() {
  static int n = nsl_seed();
  static int m = nsl_seed();
  static int k = nsl_seed();
  return ++n + ++m + ++k;
}

template <class F> int once(F f) {
  static int n = f();
  return n;
}

inline int with_lambda() {
  return once([] { return nsl_seed(); });
}
} // namespace nsl

int nsl_use();
#endif
