// libalpha.a: every kind of weak definition -fvisibility-inlines-hidden treats apart
// (docs/fix-plan.md): inline functions with function-local statics, a lambda in an inline
// function, an inline function template, a non-inline function template, an explicit
// instantiation, a class template's in-class and out-of-class members and static data member.
#ifndef PLAN_ALPHA_H
#define PLAN_ALPHA_H
namespace alpha {
int seed();
int run();

inline int counter() {
  static int n = seed();
  return ++n;
}

inline int with_lambda() {
  auto f = [] {
    static int calls = seed();
    return ++calls;
  };
  return f();
}

template <class T> inline T twice(T v) {
  static T last = T(seed());
  last = last + v + v;
  return last;
}

template <class T> T tmpl(T v);

template <class T> struct Box {
  static T sdm;
  T get() {
    static T g = T(seed());
    return g + sdm;
  }
  T out();
};
} // namespace alpha
#endif
