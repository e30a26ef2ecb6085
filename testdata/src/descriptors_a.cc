// Translation unit A: instantiates the "A" descriptors (and Allocate, which
// is also instantiated in B, so both objects carry the same weak definitions).
#include "ada_iter.h"
#include "descriptors.h"

namespace v8 {
namespace internal {

const DescriptorEntry kDescriptorsA[] = {
    WEAKSCAN_DESCRIPTORS_A(WEAKSCAN_DESCRIPTOR_ENTRY)};
const int kDescriptorCountA = sizeof(kDescriptorsA) / sizeof(kDescriptorsA[0]);

#define WEAKSCAN_CALL_INITIALIZE(Name, ...)                            \
  StaticCallInterfaceDescriptor<Name##Descriptor>::Initialize(data); \
  total += data->register_count();

int InitializeAllA(CallInterfaceDescriptorData* data) {
  int total = 0;
  WEAKSCAN_DESCRIPTORS_A(WEAKSCAN_CALL_INITIALIZE)
  weakscan_call_count()++;
  return total;
}

}  // namespace internal
}  // namespace v8

unsigned CountKeysA(const ada::string_view* begin, const ada::string_view* end) {
  ada::url_search_params_keys_iter it(begin, end);
  unsigned h = 0;
  while (it.has_next()) h += weakscan_hash(it.next().data);
  return h + static_cast<unsigned>(it.next().size);  // it.next() == EMPTY here
}
