// Shared by the images of the process fixture testdata/process/App.app (App,
// libshared_a, libshared_b, libdeep). Built with default visibility, so every
// template instantiation below is an exported weak definition of each image
// that instantiates it, and each image weak-binds its own uses of it: dyld
// coalesces them across the images at launch.
#ifndef WEAKSCAN_PROCESS_H
#define WEAKSCAN_PROCESS_H

#include "../common.h"

namespace proc {

// A class template whose member function has a function-local static that is
// dynamically initialized: Instance(), the static `instance` and its guard
// variable (__ZGVZ…) are weak definitions; the initializer calls operator new.
template <typename T>
class Registry {
 public:
  static Registry& Instance();
  void Add(T v) {
    total_ += v;
    ++count_;
  }
  T total() const { return total_; }
  int count() const { return count_; }

 private:
  T total_;
  int count_;
};

template <typename T>
Registry<T>& Registry<T>::Instance() {
  static Registry* instance = new Registry();
  return *instance;
}

// A function template with a constant-initialized function-local static: the
// function and `value` are weak definitions. libshared_b replaces
// Counter<long> by a strong explicit specialization (same mangled name).
template <typename T>
T& Counter() {
  static T value = T(1);
  return value;
}

// A function template without statics. Only libshared_a instantiates it
// (explicitly, for short), and nothing calls it: an unused weak definition.
template <typename T>
T Clamp(T v, T lo, T hi) {
  return v < lo ? lo : (hi < v ? hi : v);
}

// The uses of the shared templates, as writable pointers with external linkage
// (one table per image): taking the addresses keeps the instantiations
// exported (an inline function whose address escapes cannot be "automatically
// hidden") and gives each a weak bind in __DATA.
struct TemplateUses {
  Registry<int>& (*registry)();
  int& (*counter_int)();
  long& (*counter_long)();
};

// libdeep's pool: Get() and Take() are defined out of line and not `inline`,
// and every image but libdeep sees only the explicit instantiation
// declaration, so Pool<int> is defined (weak, by `template class`) in libdeep
// alone and the others bind to it.
template <typename T>
class Pool {
 public:
  static Pool& Get();
  T Take();

 private:
  T next_;
};

template <typename T>
__attribute__((noinline)) Pool<T>& Pool<T>::Get() {
  static Pool pool;
  return pool;
}

template <typename T>
__attribute__((noinline)) T Pool<T>::Take() {
  return next_++;
}

extern template class Pool<int>;

}  // namespace proc

// libdeep: a weak variable that only libdeep defines, and a plain function.
extern int deep_tunable;
int DeepVersion();

// libshared_a and libshared_b entry points (strong).
int SharedARun(int x);
int SharedBRun(int x);
// libplugin (App-v2.app only).
int PluginRun(int x);

#endif  // WEAKSCAN_PROCESS_H
