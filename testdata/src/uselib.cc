// An executable linked against libweak.dylib: it defines some of the same
// weak symbols as the dylib (coalesced by dyld at launch) and uses
// libweak_tunable, a weak definition that only the dylib has.
#include "ada_iter.h"
#include "descriptors.h"

extern int libweak_tunable;
unsigned LibweakCountKeys(const ada::string_view* begin, const ada::string_view* end);
namespace v8 {
namespace internal {
int LibweakInitializeAll(CallInterfaceDescriptorData* data);
}  // namespace internal
}  // namespace v8

using InitializeFn = void (*)(v8::internal::CallInterfaceDescriptorData*);
InitializeFn weakscan_uselib_init =
    &v8::internal::StaticCallInterfaceDescriptor<v8::internal::AllocateDescriptor>::Initialize;

int main() {
  v8::internal::CallInterfaceDescriptorData data;
  weakscan_uselib_init(&data);
  unsigned total = static_cast<unsigned>(data.register_count());
  total += static_cast<unsigned>(v8::internal::LibweakInitializeAll(&data));
  const ada::string_view keys[] = {{"q", 1}, {"lang", 4}};
  total += LibweakCountKeys(keys, keys + 2);
  ada::url_search_params_keys_iter it(keys, keys + 2);
  while (it.has_next()) total += weakscan_hash(it.next().data);
  int* p = new int(static_cast<int>(total) + libweak_tunable);
  total += static_cast<unsigned>(*p + weakscan_tls_depth);
  delete p;
  weakscan_print("uselib", total);
  return 0;
}
