// A registry both libalpha.a and libbeta.a instantiate (core::Registry<int>): each library's
// object defines the same weak functions, so the symbols stay exported until both libraries
// are hidden. Functions only: every use of them is a call through a stub, whichever copy the
// linker keeps (docs/fix-plan.md, "Every definer").
#ifndef PLAN_CORE_H
#define PLAN_CORE_H
namespace core {
template <class T> struct Registry {
  T sum = T(0);
  void add(T v);
  T size() { return sum + T(1); }
};

template <class T> void Registry<T>::add(T v) { sum = sum + v; }
} // namespace core
#endif
