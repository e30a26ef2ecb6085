// An AddressSanitizer-instrumentable `__cxa_demangle` for the fuzz targets; built by
// fuzz/libcxxabi-asan.sh into fuzz/libcxxabi-asan/lib/libc++abi.a (see there).
//
// The demangler is LLVM 22's own ItaniumDemangle.h (llvm-22-dev,
// /usr/lib/llvm-22/include/llvm/Demangle/), the copy that libcxxabi's
// src/demangle/cp-to-llvm.sh makes of libcxxabi/src/demangle/ItaniumDemangle.h
// (it rewrites only the first two comment lines). This file re-does, against that
// header's public parser API, the glue of libcxxabi/src/cxa_demangle.cpp
// (github.com/llvm/llvm-project, tag llvmorg-22.1.8): parse_discriminator, a node
// allocator and __cxa_demangle itself, with the same arguments, status codes and
// buffer handling. Differences that no caller can see: the nodes are malloc'd one by
// one (so ASan puts a redzone round each) instead of being bump-allocated, running
// out of memory aborts instead of calling std::terminate, and the DEMANGLE_ASSERTs
// are assert()s (Debian builds libc++abi with its assertions on too).

#undef NDEBUG // keep the demangler's internal consistency checks, as Debian's build does

// DemangleConfig.h names the namespace llvm::itanium_demangle unconditionally. Read it
// first and put the demangler in an unnamed namespace instead, as libcxxabi does, so
// of the demangler only __cxa_demangle is global (a libstdc++ string_view operator==
// instantiation stays a weak definition, as in any C++ object).
#include "llvm/Demangle/DemangleConfig.h"
#undef DEMANGLE_NAMESPACE_BEGIN
#undef DEMANGLE_NAMESPACE_END
#define DEMANGLE_NAMESPACE_BEGIN namespace { namespace itanium_demangle {
#define DEMANGLE_NAMESPACE_END } }
#include "llvm/Demangle/ItaniumDemangle.h"

#include <cctype>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>

namespace {
namespace itanium_demangle {

// <discriminator> := _ <digit> | __ <number> _, or (an extension) digits that run to
// the end of the name. It is skipped, not shown; a malformed one is left in place.
const char *parse_discriminator(const char *first, const char *last) {
  if (first == last)
    return first;
  if (*first == '_') {
    const char *p = first + 1;
    if (p == last)
      return first;
    if (std::isdigit(static_cast<unsigned char>(*p)))
      return p + 1;
    if (*p != '_')
      return first;
    for (++p; p != last && std::isdigit(static_cast<unsigned char>(*p)); ++p) {
    }
    return (p != last && *p == '_') ? p + 1 : first;
  }
  if (std::isdigit(static_cast<unsigned char>(*first))) {
    const char *p = first + 1;
    while (p != last && std::isdigit(static_cast<unsigned char>(*p)))
      ++p;
    return p == last ? last : first;
  }
  return first;
}

} // namespace itanium_demangle

using itanium_demangle::Node;

// Node storage for one parse: each request is its own malloc block, chained through
// a 16-byte header and freed together by reset() or the destructor.
class NodeHeap {
  struct alignas(16) Chunk {
    Chunk *Prev;
  };
  Chunk *Last = nullptr;

  void *allocate(std::size_t N) {
    void *Mem = std::malloc(sizeof(Chunk) + N);
    if (Mem == nullptr)
      std::abort();
    Last = new (Mem) Chunk{Last};
    return static_cast<Chunk *>(Mem) + 1;
  }

public:
  NodeHeap() = default;
  NodeHeap(const NodeHeap &) = delete;
  NodeHeap &operator=(const NodeHeap &) = delete;
  ~NodeHeap() { reset(); }

  void reset() {
    while (Last != nullptr) {
      Chunk *Prev = Last->Prev;
      std::free(Last);
      Last = Prev;
    }
  }

  template <typename T, typename... Args> T *makeNode(Args &&...args) {
    return new (allocate(sizeof(T))) T(std::forward<Args>(args)...);
  }

  void *allocateNodeArray(std::size_t Count) {
    return allocate(sizeof(Node *) * Count);
  }
};

using Demangler = itanium_demangle::ManglingParser<NodeHeap>;

// The status values of the Itanium C++ ABI (and of <cxxabi.h>).
constexpr int kSuccess = 0;
constexpr int kInvalidMangledName = -2;
constexpr int kInvalidArguments = -3;

} // namespace

// Itanium C++ ABI 3.4: demangle MangledName into Buf (a malloc'd buffer of *N bytes,
// grown with realloc if too small) or, with Buf null, into a new malloc'd buffer.
// Returns the NUL-terminated text (with *N, if N is given, set to its length plus
// one) or null with *Status -2 (not a mangled name) or -3 (bad arguments).
extern "C" __attribute__((visibility("default"))) char *
__cxa_demangle(const char *MangledName, char *Buf, std::size_t *N, int *Status) {
  if (MangledName == nullptr || (Buf != nullptr && N == nullptr)) {
    if (Status != nullptr)
      *Status = kInvalidArguments;
    return nullptr;
  }

  Demangler Parser(MangledName, MangledName + std::strlen(MangledName));
  Node *Tree = Parser.parse();
  if (Tree == nullptr) {
    if (Status != nullptr)
      *Status = kInvalidMangledName;
    return nullptr;
  }

  itanium_demangle::OutputBuffer Out(Buf, N);
  DEMANGLE_ASSERT(Parser.ForwardTemplateRefs.empty(), "");
  Tree->print(Out);
  Out += '\0';
  if (N != nullptr)
    *N = Out.getCurrentPosition();
  if (Status != nullptr)
    *Status = kSuccess;
  return Out.getBuffer();
}
