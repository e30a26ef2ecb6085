// Mimics V8's src/codegen/interface-descriptors{,-inl}.h just enough to
// reproduce the weak symbols of nodejs/performance#180: every instantiation of
// StaticCallInterfaceDescriptor<D>::Initialize(CallInterfaceDescriptorData*)
// carries its own function-local statics, each one a weak definition.
#ifndef WEAKSCAN_DESCRIPTORS_H
#define WEAKSCAN_DESCRIPTORS_H

#include "common.h"

namespace v8 {
namespace internal {

struct Register {
  int code;
};

template <int N>
struct RegisterArray {
  Register regs[N];
  static constexpr int size() { return N; }
};

template <int... Codes>
constexpr RegisterArray<sizeof...(Codes)> Regs() {
  return {{Register{Codes}...}};
}

class CallInterfaceDescriptorData {
 public:
  void InitializeRegisters(const Register* regs, int count, const int* flags,
                           int param_count) {
    registers_ = regs;
    register_count_ = count;
    flags_ = flags;
    param_count_ = param_count;
  }
  int register_count() const { return register_count_; }
  int param_count() const { return param_count_; }
  const Register* registers() const { return registers_; }
  const int* flags() const { return flags_; }

 private:
  const Register* registers_ = nullptr;
  const int* flags_ = nullptr;
  int register_count_ = 0;
  int param_count_ = 0;
};

struct DescriptorStats {
  explicit DescriptorStats(int params) : initialized(0), params(params) {}
  int initialized;
  int params;
};

template <typename DerivedDescriptor>
class StaticCallInterfaceDescriptor {
 public:
  static void Initialize(CallInterfaceDescriptorData* data);
  static const char* DebugName() { return DerivedDescriptor::kName; }
};

// Defined out of class and not `inline`, as in V8's -inl.h.
template <typename DerivedDescriptor>
void StaticCallInterfaceDescriptor<DerivedDescriptor>::Initialize(
    CallInterfaceDescriptorData* data) {
  // Constant-initialized, writable (like V8's `static auto registers = ...`).
  static auto registers = DerivedDescriptor::registers();
  // Constant-initialized, read-only.
  static const int flags[] = {DerivedDescriptor::kParameterCount,
                              DerivedDescriptor::kReturnCount,
                              decltype(registers)::size()};
  // Dynamically initialized: a guard variable (__ZGVZ...) plus operator new.
  static DescriptorStats* stats =
      new DescriptorStats(DerivedDescriptor::kParameterCount);
  stats->initialized++;
  data->InitializeRegisters(registers.regs, registers.size(), flags,
                            stats->params);
}

using InitializeFn = void (*)(CallInterfaceDescriptorData*);

struct DescriptorEntry {
  const char* name;
  InitializeFn initialize;
};

// V(Name, ParameterCount, ReturnCount, register codes...)
#define WEAKSCAN_DESCRIPTORS_COMMON(V) V(Allocate, 1, 1, 1)

#define WEAKSCAN_DESCRIPTORS_A_V1(V) \
  V(CallTrampoline, 2, 1, 1, 0)      \
  V(Load, 3, 1, 1, 2, 0)

#define WEAKSCAN_DESCRIPTORS_B_V1(V) \
  V(Store, 4, 1, 1, 2, 0, 3)         \
  V(Construct, 3, 1, 1, 3, 0)        \
  V(Compare, 2, 1, 1, 0)

#define WEAKSCAN_DESCRIPTORS_A_V2(V)        \
  V(BinaryOp, 3, 1, 1, 0, 2)                \
  V(UnaryOp, 2, 1, 0, 2)                    \
  V(CallVarargs, 4, 1, 1, 0, 4, 2)          \
  V(LoadGlobal, 3, 1, 2, 0, 3)              \
  V(StoreGlobal, 4, 1, 2, 0, 3, 1)          \
  V(GrowArrayElements, 2, 1, 0, 3)

#define WEAKSCAN_DESCRIPTORS_B_V2(V)        \
  V(TypeConversion, 1, 1, 0)                \
  V(ArrayConstructor, 3, 1, 1, 3, 0)        \
  V(ConstructStub, 4, 1, 1, 3, 0, 2)        \
  V(CEntry1ArgvOnStack, 2, 1, 0, 1)         \
  V(ApiCallback, 4, 1, 1, 2, 3, 0)          \
  V(WasmFloat64ToTagged, 1, 1, 0)

#ifdef WEAKSCAN_V2
#define WEAKSCAN_DESCRIPTORS_A(V) \
  WEAKSCAN_DESCRIPTORS_COMMON(V)  \
  WEAKSCAN_DESCRIPTORS_A_V1(V) WEAKSCAN_DESCRIPTORS_A_V2(V)
#define WEAKSCAN_DESCRIPTORS_B(V) \
  WEAKSCAN_DESCRIPTORS_COMMON(V)  \
  WEAKSCAN_DESCRIPTORS_B_V1(V) WEAKSCAN_DESCRIPTORS_B_V2(V)
#else
#define WEAKSCAN_DESCRIPTORS_A(V) \
  WEAKSCAN_DESCRIPTORS_COMMON(V) WEAKSCAN_DESCRIPTORS_A_V1(V)
#define WEAKSCAN_DESCRIPTORS_B(V) \
  WEAKSCAN_DESCRIPTORS_COMMON(V) WEAKSCAN_DESCRIPTORS_B_V1(V)
#endif

#define WEAKSCAN_DEFINE_DESCRIPTOR(Name, Params, Returns, ...)             \
  class Name##Descriptor                                                   \
      : public StaticCallInterfaceDescriptor<Name##Descriptor> {           \
   public:                                                                 \
    static constexpr int kParameterCount = Params;                         \
    static constexpr int kReturnCount = Returns;                           \
    static constexpr const char kName[] = #Name "Descriptor";              \
    static constexpr auto registers() { return Regs<__VA_ARGS__>(); }      \
  };

WEAKSCAN_DESCRIPTORS_COMMON(WEAKSCAN_DEFINE_DESCRIPTOR)
WEAKSCAN_DESCRIPTORS_A_V1(WEAKSCAN_DEFINE_DESCRIPTOR)
WEAKSCAN_DESCRIPTORS_B_V1(WEAKSCAN_DEFINE_DESCRIPTOR)
WEAKSCAN_DESCRIPTORS_A_V2(WEAKSCAN_DEFINE_DESCRIPTOR)
WEAKSCAN_DESCRIPTORS_B_V2(WEAKSCAN_DEFINE_DESCRIPTOR)

#define WEAKSCAN_DESCRIPTOR_ENTRY(Name, ...) \
  {#Name, &StaticCallInterfaceDescriptor<Name##Descriptor>::Initialize},

// Defined in descriptors_a.cc / descriptors_b.cc.
extern const DescriptorEntry kDescriptorsA[];
extern const int kDescriptorCountA;
int InitializeAllA(CallInterfaceDescriptorData* data);
extern const DescriptorEntry kDescriptorsB[];
extern const int kDescriptorCountB;
int InitializeAllB(CallInterfaceDescriptorData* data);

}  // namespace internal
}  // namespace v8

#endif  // WEAKSCAN_DESCRIPTORS_H
