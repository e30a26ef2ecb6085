// Translation unit B: instantiates the "B" descriptors (and Allocate again).
#include "ada_iter.h"
#include "descriptors.h"

namespace v8 {
namespace internal {

const DescriptorEntry kDescriptorsB[] = {
    WEAKSCAN_DESCRIPTORS_B(WEAKSCAN_DESCRIPTOR_ENTRY)};
const int kDescriptorCountB = sizeof(kDescriptorsB) / sizeof(kDescriptorsB[0]);

#define WEAKSCAN_CALL_INITIALIZE(Name, ...)                            \
  StaticCallInterfaceDescriptor<Name##Descriptor>::Initialize(data); \
  total += data->register_count();

int InitializeAllB(CallInterfaceDescriptorData* data) {
  int total = 0;
  WEAKSCAN_DESCRIPTORS_B(WEAKSCAN_CALL_INITIALIZE)
  weakscan_call_count()++;
  return total;
}

}  // namespace internal
}  // namespace v8

unsigned CountEntriesB(const ada::key_value* begin, const ada::key_value* end) {
  ada::url_search_params_entries_iter it(begin, end);
  unsigned h = 0;
  while (it.has_next()) {
    const ada::key_value& kv = it.next();
    h += weakscan_hash(kv.key.data) ^ weakscan_hash(kv.value.data);
  }
  return h + static_cast<unsigned>(it.next().key.size);
}

// B also uses the keys iterator, so its instantiation is in both objects.
unsigned CountKeysB(const ada::string_view* begin, const ada::string_view* end) {
  ada::url_search_params_keys_iter it(begin, end);
  unsigned n = 0;
  while (it.has_next()) n += static_cast<unsigned>(it.next().size);
  return n;
}
