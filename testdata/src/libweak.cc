// libweak.dylib: a dylib that exports weak definitions (the same descriptor
// instantiations as the executables, so dyld would coalesce them), plus a
// weak variable that only the dylib defines.
#include "ada_iter.h"
#include "descriptors.h"

// Weak definition that exists only in the dylib: an executable that uses it
// gets a weak bind whose target lives in another image.
__attribute__((weak)) int libweak_tunable = 7;

namespace v8 {
namespace internal {

const DescriptorEntry kLibweakDescriptors[] = {
    WEAKSCAN_DESCRIPTORS_COMMON(WEAKSCAN_DESCRIPTOR_ENTRY)
    WEAKSCAN_DESCRIPTORS_B_V1(WEAKSCAN_DESCRIPTOR_ENTRY)};

// Strong, exported entry point.
int LibweakInitializeAll(CallInterfaceDescriptorData* data) {
  int total = 0;
  for (const DescriptorEntry& e : kLibweakDescriptors) {
    e.initialize(data);
    total += data->register_count();
  }
  weakscan_tls_depth++;
  return total + static_cast<int>(weakscan_hash("libweak")) + libweak_tunable +
         weakscan_call_count()++;
}

}  // namespace internal
}  // namespace v8

unsigned LibweakCountKeys(const ada::string_view* begin, const ada::string_view* end) {
  ada::url_search_params_keys_iter it(begin, end);
  unsigned n = 0;
  while (it.has_next()) n += static_cast<unsigned>(it.next().size);
  return n;
}
