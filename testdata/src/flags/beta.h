// libbeta.a of the flags-regression program (testdata/flags/): V8's pattern of
// StaticCallInterfaceDescriptor<D>::Initialize, a static member function of a class template
// with function-local statics, instantiated once per descriptor. Compiled with
// -fvisibility=hidden in the old build and without it in the new one: each instantiation is
// then an exported weak definition, and so are its statics.
#ifndef FLAGS_BETA_H
#define FLAGS_BETA_H
namespace beta {
struct Data {
  int registers[4];
  int calls;
};

template <class D> struct Descriptor {
  static void Initialize(Data* d) {
    static int registers[4] = {D::kFirst, D::kFirst + 1, D::kFirst + 2, D::kFirst + 3};
    static int calls = 0;
    for (int i = 0; i < 4; i++) d->registers[i] = registers[i];
    d->calls = ++calls;
  }
};

// Each descriptor a type of its own, as V8 declares them.
#define BETA_DESCRIPTOR(Name, First)                                                          \
  struct Name {                                                                               \
    static constexpr int kFirst = First;                                                      \
  };
} // namespace beta

// The objects' entry points: each runs its table of Initialize functions.
int beta_a(beta::Data* d);
int beta_b(beta::Data* d);
int beta_c(beta::Data* d);
#endif
