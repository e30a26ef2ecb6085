// libleak.a: the last leaker. Its only weak definitions are an inline function and its local
// static, which either flag hides: rebuilt, the executable exports no weak definition.
#ifndef PLAN_LEAK_H
#define PLAN_LEAK_H
namespace leak {
int seed();
int run();

inline int count() {
  static int n = seed();
  return ++n;
}
} // namespace leak
#endif
