// Weak definitions shared by a.cc and b.cc: a template member function with a
// function-local static (like V8's `registers`), a function template, and a static
// data member of a class template.
template <typename T> struct Registry {
  __attribute__((noinline)) static T *registers() {
    static T registers[4] = {1, 2, 3, 4};
    return registers;
  }
  static T count;
};
template <typename T> T Registry<T>::count = 7;

template <typename T> __attribute__((noinline)) T twice(T x) { return x + x; }
