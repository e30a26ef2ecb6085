// libbeta.a: a registry the plug-ins share with the executable (plug_ref.cc only declares it:
// it binds the executable's instantiations by weak lookup).
#ifndef PLAN_BETA_H
#define PLAN_BETA_H
namespace beta {
int run();

template <class T> struct Reg {
  void add(T v);
  int count();
};

#ifndef PLAN_DECLARE_ONLY
template <class T> void Reg<T>::add(T v) {
  static T total = T(0);
  total = total + v;
  count();
}

template <class T> int Reg<T>::count() {
  static int c = run();
  return ++c;
}
#endif
} // namespace beta
#endif
