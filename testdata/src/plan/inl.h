// libinl.a, compiled with -fvisibility-inlines-hidden already: adding it hides nothing; what it
// leaves exported (a non-inline member template, a static data member, an explicit
// instantiation) only -fvisibility=hidden hides.
#ifndef PLAN_INL_H
#define PLAN_INL_H
int inl_seed();

namespace inl {
inline int hidden_count() {
  static int n = inl_seed();
  return ++n;
}

template <class T> struct Box {
  static T total;
  T out();
  T in() {
    static T n = T(inl_seed());
    return ++n;
  }
};
template <class T> T Box<T>::total = T(inl_seed());
// Not inline: the flag keeps it and its local static.
template <class T> T Box<T>::out() {
  static T n = T(inl_seed());
  return ++n + total;
}
} // namespace inl

int inl_use();
#endif
