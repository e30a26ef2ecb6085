// The fixture executable: calls every descriptor's Initialize through the
// tables of both translation units, uses the ada iterators, the global inline
// functions, the thread_local, and operator new/delete.
#include "ada_iter.h"
#include "descriptors.h"

unsigned CountKeysA(const ada::string_view* begin, const ada::string_view* end);
unsigned CountKeysB(const ada::string_view* begin, const ada::string_view* end);
unsigned CountEntriesB(const ada::key_value* begin, const ada::key_value* end);

// A strong (non-weak) replacement of operator new[] / delete[]: it overrides
// libSystem's weak definitions. In opcode builds lld records it in the
// weak-bind stream as a "strong" entry (BIND_SYMBOL_FLAGS_NON_WEAK_DEFINITION).
// It alone is enough for lld to set MH_WEAK_DEFINES, even in hidden builds;
// -DWEAKSCAN_NO_STRONG_OVERRIDE leaves it out.
#ifndef WEAKSCAN_NO_STRONG_OVERRIDE
void* operator new[](unsigned long size) { return operator new(size); }
void operator delete[](void* p) noexcept { operator delete(p); }
#endif

namespace {

struct Widget {
  int id;
  int value;
};

}  // namespace

using HashFn = unsigned (*)(const char*);
using CounterFn = int& (*)();

// Pointers to the global inline functions, in writable data with external
// linkage so the optimizer cannot fold them into direct calls: this keeps the
// functions exported (a weak definition whose address escapes cannot be
// "automatically hidden") and gives each a weak bind in __DATA.
HashFn weakscan_hash_ptr = &weakscan_hash;
CounterFn weakscan_counter_ptr = &weakscan_call_count;
const void* weakscan_ada_empty_ptr = &ada::url_search_params_keys_iter::EMPTY;
// A pointer into the middle of a weak definition: a weak bind with addend 8.
const unsigned long* weakscan_ada_empty_size_ptr =
    &ada::url_search_params_keys_iter::EMPTY.size;
void* weakscan_allocs[2] = {nullptr, nullptr};

int main() {
  using namespace v8::internal;
  CallInterfaceDescriptorData data;
  unsigned total = 0;

  for (int i = 0; i < kDescriptorCountA; i++) {
    kDescriptorsA[i].initialize(&data);
    total += static_cast<unsigned>(data.register_count() + data.flags()[0]);
  }
  for (int i = 0; i < kDescriptorCountB; i++) {
    kDescriptorsB[i].initialize(&data);
    total += static_cast<unsigned>(data.register_count() + data.flags()[0]);
  }
  total += static_cast<unsigned>(InitializeAllA(&data) + InitializeAllB(&data));
  weakscan_print("descriptors", static_cast<unsigned>(kDescriptorCountA + kDescriptorCountB));

  const ada::string_view keys[] = {{"q", 1}, {"lang", 4}, {"page", 4}};
  const ada::key_value entries[] = {{{"q", 1}, {"weak", 4}}, {{"lang", 4}, {"en", 2}}};
  total += CountKeysA(keys, keys + 3) + CountKeysB(keys, keys + 3);
  total += CountEntriesB(entries, entries + 2);
  total += static_cast<unsigned>(static_cast<const ada::string_view*>(weakscan_ada_empty_ptr)->size +
                                 *weakscan_ada_empty_size_ptr);

  // Both pointers escape through weakscan_allocs, so the optimizer cannot
  // elide the new/delete pairs.
  Widget* w = new Widget{7, static_cast<int>(total)};
  weakscan_allocs[0] = w;
  int* scratch = new int[4];
  weakscan_allocs[1] = scratch;
  scratch[0] = w->value;
  total += static_cast<unsigned>(scratch[0] + w->id);
  delete[] scratch;
  delete w;

  weakscan_tls_depth++;
  total += weakscan_hash_ptr("weakscan") + static_cast<unsigned>(weakscan_counter_ptr() + weakscan_tls_depth);
  weakscan_print("total", total);
  puts("weakscan fixture");
  return 0;
}
